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
    for args in ([], ["--heads", "4", "--d-model", "12", "--seed", "3"], ["--heads", "1"]):
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
