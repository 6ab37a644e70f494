import numpy as np


def masked_attention(Q, K, V, keep, softmax):
    """softmax(Q Kᵀ / √d_h) over the keys `keep` marks (n × n booleans), then · V."""
    scores = np.where(keep, Q @ K.T / np.sqrt(Q.shape[1]), -np.inf)
    weights = softmax(scores)
    return weights, weights @ V


def slots_after(n, w, s):
    """The position each of the s + w slots holds after step t: sinks t < s, then slot s + t mod w."""
    slots, holds = np.full((n, s + w), -1.0), np.full(s + w, -1.0)
    for t in range(n):
        holds[t if t < s else s + t % w] = t
        slots[t] = holds
    return slots


def check(dump, expect, softmax):
    for args in (["--steps", "10"], ["--steps", "10", "--window", "3", "--sinks", "2", "--top-k", "5", "--rank", "16",
                                     "--seed", "4"], ["--steps", "10", "--window", "1", "--sinks", "0", "--top-k", "1"]):
        d = dump("ch20_sparse_attention", *args)
        flag = lambda name, default: int(args[args.index(name) + 1]) if name in args else default
        w, s, k = flag("--window", 8), flag("--sinks", 4), flag("--top-k", 4)
        tag = f"ch20 {' '.join(args)}"
        Q, K, V = d["Q"], d["K"], d["V"]
        n = Q.shape[0]
        i, j = np.indices((n, n))
        causal = j <= i
        weights, output = masked_attention(Q, K, V, causal, softmax)
        expect(f"{tag}: weights_full, output_full == causal softmax attention of Q, K, V",
               np.concatenate([d["weights_full"], d["output_full"]], axis=1), np.concatenate([weights, output], axis=1))
        weights, output = masked_attention(Q, K, V, causal & ((j < s) | (i - j < w)), softmax)
        expect(f"{tag}: weights_window_sinks, output_window_sinks == attention to j < s or i − j < w",
               np.concatenate([d["weights_window_sinks"], d["output_window_sinks"]], axis=1),
               np.concatenate([weights, output], axis=1))
        expect(f"{tag}: slots == sinks in slots 0 … s − 1, token t ≥ s in slot s + t mod w", d["slots"],
               slots_after(n, w, s), tol=0)
        index = np.where(causal, (d["X_layer"] @ d["W_IQ"]) @ (d["X_layer"] @ d["W_IK"]).T, 0)
        expect(f"{tag}: index_scores == (X W_IQ)(X W_IK)ᵀ below the diagonal", d["index_scores"], index, tol=1e-3)
        best = np.full((n, k), -1.0)
        for row in range(n):  # the highest index scores of keys 0 … row, the earlier position on a tie
            order = sorted(range(row + 1), key=lambda col: (-d["index_scores"][row, col], col))[:k]
            best[row, :len(order)] = order
        expect(f"{tag}: topk_index == the k keys j ≤ i of highest index score", d["topk_index"], best, tol=0)
        keep = np.zeros((n, n), dtype=bool)
        for row in range(n):
            keep[row, d["topk_index"][row][d["topk_index"][row] >= 0].astype(int)] = True
        weights, output = masked_attention(Q, K, V, keep, softmax)
        expect(f"{tag}: weights_topk, output_topk == attention to the kept keys",
               np.concatenate([d["weights_topk"], d["output_topk"]], axis=1), np.concatenate([weights, output], axis=1))
        sigma = d["sink_logit"][0, 0]
        scores = np.where(causal, d["sink_Q"] @ d["sink_K"].T / np.sqrt(Q.shape[1]), -np.inf)
        with_sink = softmax(np.concatenate([scores, np.full((n, 1), sigma)], axis=1))
        expect(f"{tag}: sink_weights, sink_share == softmax over [scores, σ] (σ = {sigma:.3f})",
               np.concatenate([d["sink_weights"], d["sink_share"]], axis=1), with_sink)
        expect(f"{tag}: sink_weights' rows sum to 1 − sink_share", d["sink_weights"].sum(axis=1),
               1 - d["sink_share"][:, 0], tol=1e-5)
