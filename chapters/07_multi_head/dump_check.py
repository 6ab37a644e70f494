import numpy as np


def multi_head(X, W_Q, W_K, W_V, W_O, h, softmax):
    """numpy's multi-head attention: project, split into (h, n, d_k), attend, merge, project."""
    n, d_model = X.shape
    d_k = W_Q.shape[1] // h
    split = lambda M: M.reshape(n, h, d_k).transpose(1, 0, 2)  # (h, n, d_k)
    Q, K, V = split(X @ W_Q), split(X @ W_K), split(X @ W_V)
    weights = softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(d_k))  # (h, n, n)
    concat = (weights @ V).transpose(1, 0, 2).reshape(n, h * d_k)
    return weights, concat, concat @ W_O


def check(dump, expect, softmax):
    sentence = "Call me Ishmael."
    for args in ([], ["--heads", "4", "--d-model", "12", "--seed", "3"], ["--heads", "1"],
                 ["--text", sentence, "--layer", "1"]):
        d = dump("ch07_multi_head", *args)
        h = len([name for name in d if name.startswith("head") and name.endswith("_weights")])
        tag = f"ch07 {' '.join(args) or '(default)'}"
        weights, concat, output = multi_head(d["X"], d["W_Q"], d["W_K"], d["W_V"], d["W_O"], h, softmax)
        d_k = d["W_Q"].shape[1] // h
        for i in range(h):
            cols = slice(i * d_k, (i + 1) * d_k)
            expect(f"{tag}: head{i}_Q == X @ W_Q[:, {cols.start}:{cols.stop}]", d[f"head{i}_Q"],
                   d["X"] @ d["W_Q"][:, cols])
            expect(f"{tag}: head{i}_weights", d[f"head{i}_weights"], weights[i])
            expect(f"{tag}: head{i}_output == head{i}_weights @ V_{i}", d[f"head{i}_output"],
                   d[f"head{i}_weights"] @ (d["X"] @ d["W_V"][:, cols]))
        expect(f"{tag}: concat", d["concat"], concat)
        expect(f"{tag}: output == concat @ W_O", d["output"], output)
        expect(f"{tag}: Q == X @ W_Q", d["Q"], d["X"] @ d["W_Q"])

    # --text --layer 1: the layer's learned weights, as nanoGPT splits its fused c_attn (out × in):
    # W_Q is the transpose of rows 0 … d−1, W_K of d … 2d−1, W_V of 2d … 3d−1; W_O of c_proj.
    t = dump("ch07_multi_head", "--text", sentence, "--layer", "1")
    m = dump("ch22_small_gpt", "--text", sentence, "--step", "1")
    c_attn, d = m["transformer.h.1.attn.c_attn.weight"], t["X"].shape[1]
    for part, name in enumerate(["W_Q", "W_K", "W_V"]):
        expect(f"ch07 --text --layer 1: {name} == c_attn[{part * d}:{(part + 1) * d}].T", t[name],
               c_attn[part * d:(part + 1) * d].T, tol=0)
    expect("ch07 --text --layer 1: W_O == c_proj.T", t["W_O"], m["transformer.h.1.attn.c_proj.weight"].T, tol=0)
    heads = len([name for name in t if name.startswith("head") and name.endswith("_weights")])
    expect("ch07 --text --layer 1: the model's 4 heads", heads, 4)
