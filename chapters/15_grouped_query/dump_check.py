import re

import numpy as np


def grouped_query(X, W_Q, W_K, W_V, W_O, h, g, softmax, tiling=False):
    """numpy's grouped-query attention: h query heads, g key–value heads repeated to h."""
    n = X.shape[0]
    d_k = W_Q.shape[1] // h
    split = lambda M, heads: M.reshape(n, heads, d_k).transpose(1, 0, 2)  # (heads, n, d_k)
    Q, K, V = split(X @ W_Q, h), split(X @ W_K, g), split(X @ W_V, g)
    if tiling:  # i mod g: 0 1 0 1
        K, V = np.tile(K, (h // g, 1, 1)), np.tile(V, (h // g, 1, 1))
    else:       # ⌊i / (h/g)⌋: 0 0 1 1, Hugging Face's repeat_kv
        K, V = np.repeat(K, h // g, axis=0), np.repeat(V, h // g, axis=0)
    weights = softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(d_k))  # (h, n, n)
    concat = (weights @ V).transpose(1, 0, 2).reshape(n, h * d_k)
    return weights, concat, concat @ W_O


def check(dump, expect, softmax):
    for args in ([], ["--heads", "6", "--kv-heads", "3", "--d-model", "12", "--seed", "3"],
                 ["--heads", "4", "--kv-heads", "1"], ["--heads", "4", "--kv-heads", "4"]):
        d = dump("ch15_grouped_query", *args)
        h = len([name for name in d if re.fullmatch(r"head\d+_weights", name)])
        d_k = d["W_Q"].shape[1] // h
        g = d["W_K"].shape[1] // d_k
        tag = f"ch15 {' '.join(args) or '(default)'}"
        X = d["X"]
        weights, concat, output = grouped_query(X, d["W_Q"], d["W_K"], d["W_V"], d["W_O"], h, g, softmax)
        expect(f"{tag}: Q, K, V == X @ W_Q, X @ W_K, X @ W_V",
               np.concatenate([d["Q"], d["K"], d["V"]], axis=1),
               np.concatenate([X @ d["W_Q"], X @ d["W_K"], X @ d["W_V"]], axis=1))
        for i in range(h):
            expect(f"{tag}: head{i}_weights (key–value head {i // (h // g)})", d[f"head{i}_weights"], weights[i])
        expect(f"{tag}: concat", d["concat"], concat)
        expect(f"{tag}: output", d["output"], output)
        blocks = lambda W: W.reshape(W.shape[0], g, d_k)  # (d_model, g, d_k)
        expect(f"{tag}: W_K_repeated == W_K's heads repeated h/g times",
               d["W_K_repeated"], np.repeat(blocks(d["W_K"]), h // g, axis=1).reshape(-1, h * d_k))
        expect(f"{tag}: W_V_repeated == W_V's heads repeated h/g times",
               d["W_V_repeated"], np.repeat(blocks(d["W_V"]), h // g, axis=1).reshape(-1, h * d_k))
        expect(f"{tag}: output_multi_head == output", d["output_multi_head"], output)
        tiled_weights, _, tiled_output = grouped_query(X, d["W_Q"], d["W_K"], d["W_V"], d["W_O"], h, g, softmax,
                                                       tiling=True)
        for i in range(h):
            expect(f"{tag}: head{i}_weights_tiled (key–value head {i % g})", d[f"head{i}_weights_tiled"],
                   tiled_weights[i])
        expect(f"{tag}: output_tiled", d["output_tiled"], tiled_output)
        if 1 < g < h:
            moved = np.abs(d["output_tiled"] - d["output"]).max()
            expect(f"{tag}: the tiling changes the output (by {moved:.2f})", float(moved > 1e-3), 1.0)
