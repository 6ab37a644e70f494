import numpy as np


def sinusoidal(n, d_model):
    """PE from the formula of the paper, in numpy."""
    pos = np.arange(n)[:, None]
    i = np.arange(d_model)[None, :] // 2
    angle = pos / np.power(10000.0, 2 * i / d_model)
    return np.where(np.arange(d_model)[None, :] % 2 == 0, np.sin(angle), np.cos(angle))


def check(dump, expect, softmax):
    d = dump("ch09_positional_encoding")
    X, Xp = d["X"], d["X_permuted"]
    n, d_model = X.shape

    def attention(x):
        Q, K, V = x @ d["W_Q"], x @ d["W_K"], x @ d["W_V"]
        return softmax(Q @ K.T / np.sqrt(K.shape[1])) @ V

    expect("ch09: PE == the paper's formula", d["PE"], sinusoidal(n, d_model), tol=1e-6)
    expect("ch09: PE_long == the paper's formula (50 x 16)", d["PE_long"], sinusoidal(50, 16), tol=1e-6)
    expect("ch09: X_plus_PE == X + PE", d["X_plus_PE"], X + d["PE"])
    expect("ch09: output == attention(X)", d["output"], attention(X))
    expect("ch09: output_permuted == attention(X_permuted)", d["output_permuted"], attention(Xp))
    order = [0, 5, 2, 3, 4, 1]  # the mat sat on the cat
    expect("ch09: X_permuted == X[order]", Xp, X[order])
    expect("ch09: without PE, output_permuted == output[order]", d["output_permuted"], d["output"][order])
    expect("ch09: output_pe == attention(X + PE)", d["output_pe"], attention(X + d["PE"]))
    expect("ch09: output_permuted_pe == attention(X_permuted + PE)", d["output_permuted_pe"],
           attention(Xp + d["PE"]))
    broken = np.abs(d["output_permuted_pe"] - d["output_pe"][order]).max()
    expect("ch09: with PE, output_permuted_pe != output_pe[order]", float(broken > 1e-3), 1.0)
    k = 1
    M = np.zeros((d_model, d_model))
    for i in range(d_model // 2):
        w = 1.0 / 10000.0 ** (2 * i / d_model)
        c, s = np.cos(w * k), np.sin(w * k)
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c, -s], [s, c]]
    expect("ch09: M_k == the block-diagonal rotation", d["M_k"], M, tol=1e-6)
    P = sinusoidal(50 + k, d_model)
    expect("ch09: PE(pos + k) == PE(pos) @ M_k", P[:50] @ d["M_k"], P[k:], tol=1e-5)
    expected_dots = np.array([[np.cos(k * 1.0 / 10000.0 ** (2 * np.arange(8) / 16)).sum() for k in range(8)]] * 7)
    expect("ch09: PE_dots rows == sum_i cos(w_i k)", d["PE_dots"], expected_dots)
