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
        expect(f"{tag}: q_new, k_new, v_new are the last token's", np.concatenate([d["q_new"], d["k_new"], d["v_new"]]),
               np.stack([Q[-1], K[-1], V[-1]]))
        expect(f"{tag}: strip == softmax(q_new @ K_cache.T / sqrt(d_k))", d["strip"],
               softmax(d["q_new"] @ d["K_cache"].T / np.sqrt(d_k)))
        expect(f"{tag}: output_new == strip @ V_cache", d["output_new"], d["strip"] @ d["V_cache"])
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
