import numpy as np


def masked_softmax(scores, mask):
    s = np.where(mask == 0, -np.inf, scores)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def band(n, w):
    i, j = np.indices((n, n))
    return ((j <= i) & (i - j < w)).astype(np.float32)


def check(dump, expect, softmax):
    for args, w in (([], 4), (["--prefill", "2", "--window", "3"], 3), (["--prefill", "0", "--window", "20"], 20)):
        d = dump("ch13_kv_cache", *args)
        tag = "ch13 " + (" ".join(args) or "default")
        X = d["X"]
        n = X.shape[0]
        Q, K, V = X @ d["W_Q"], X @ d["W_K"], X @ d["W_V"]
        d_k = Q.shape[1]
        expect(f"{tag}: K_cache == X @ W_K (every token, after the last step)", d["K_cache"], K)
        expect(f"{tag}: V_cache == X @ W_V", d["V_cache"], V)
        causal = masked_softmax(Q @ K.T / np.sqrt(d_k), np.tril(np.ones((n, n))))
        expect(f"{tag}: output_full == causal attention", d["output_full"], causal @ V)
        expect(f"{tag}: output_cached == causal attention", d["output_cached"], causal @ V)
        expect(f"{tag}: cached_weights == causal weights (strips stacked)", d["cached_weights"], causal)
        # every step printed in full (the first two and the last two) is dumped under its token's position
        steps = sorted(int(name[len("q_new_"):]) for name in d if name.startswith("q_new_"))
        p = int(args[args.index("--prefill") + 1]) if "--prefill" in args else 7
        expect(f"{tag}: the steps printed in full", steps, [t for t in range(p, n) if n - p <= 4 or t < p + 2 or t >= n - 2],
               tol=0)
        for t in steps:
            expect(f"{tag}: q_new_{t}, k_new_{t}, v_new_{t} are token {t}'s",
                   np.concatenate([d[f"q_new_{t}"], d[f"k_new_{t}"], d[f"v_new_{t}"]]), np.stack([Q[t], K[t], V[t]]))
            expect(f"{tag}: K_cache_{t}, V_cache_{t} == rows 0 … {t} of K and V",
                   np.concatenate([d[f"K_cache_{t}"], d[f"V_cache_{t}"]]), np.concatenate([K[:t + 1], V[:t + 1]]))
            expect(f"{tag}: strip_{t} == softmax(q_new_{t} @ K_cache_{t}.T / sqrt(d_k))", d[f"strip_{t}"],
                   softmax(d[f"q_new_{t}"] @ d[f"K_cache_{t}"].T / np.sqrt(d_k)))
            expect(f"{tag}: output_new_{t} == strip_{t} @ V_cache_{t}", d[f"output_new_{t}"],
                   d[f"strip_{t}"] @ d[f"V_cache_{t}"])
        if p > 0:
            expect(f"{tag}: K_cache_{p - 1}, V_cache_{p - 1} == the prompt's K and V (the cache after the prefill)",
                   np.concatenate([d[f"K_cache_{p - 1}"], d[f"V_cache_{p - 1}"]]), np.concatenate([K[:p], V[:p]]))
            expect(f"{tag}: prefill_weights == causal weights of the prompt", d["prefill_weights"],
                   masked_softmax(Q[:p] @ K[:p].T / np.sqrt(d_k), np.tril(np.ones((p, p)))))
        expect(f"{tag}: band_mask", d["band_mask"], band(n, w), tol=0)
        windowed = masked_softmax(Q @ K.T / np.sqrt(d_k), band(n, w))
        expect(f"{tag}: window_weights == band-masked weights", d["window_weights"], windowed)
        expect(f"{tag}: output_window_cached == windowed attention", d["output_window_cached"], windowed @ V)
        expect(f"{tag}: output_window_full == windowed attention", d["output_window_full"], windowed @ V)
        # slot s of the rolling buffer holds the last token t with t mod w == s
        kept = min(n, w)
        slots = [max(t for t in range(n) if t % w == s) for s in range(kept)]
        expect(f"{tag}: the rolling buffer holds K of token (last t with t mod w = slot)", d["window_K_cache"], K[slots])
        expect(f"{tag}: … and its V", d["window_V_cache"], V[slots])
