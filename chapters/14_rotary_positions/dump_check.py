import numpy as np


def rope(M, offset, base, layout):
    """M (n x d) with each pair turned by (offset + t) * base^(-2i/d): 'interleaved'
    pairs (2i, 2i+1), 'halves' pairs (i, i + d/2). Complex numbers, not 2x2 matrices."""
    n, d = M.shape
    theta = base ** (-np.arange(0, d, 2) / d)
    turn = np.exp(1j * np.outer(offset + np.arange(n), theta))
    a, b = (M[:, 0::2], M[:, 1::2]) if layout == "interleaved" else (M[:, :d // 2], M[:, d // 2:])
    z = (a + 1j * b) * turn
    out = np.empty_like(M, dtype=float)
    if layout == "interleaved":
        out[:, 0::2], out[:, 1::2] = z.real, z.imag
    else:
        out[:, :d // 2], out[:, d // 2:] = z.real, z.imag
    return out


def sinusoids(n, offset, d, base):
    pos = (offset + np.arange(n))[:, None]
    angle = pos * base ** (-(2 * (np.arange(d) // 2)) / d)[None, :]
    return np.where(np.arange(d)[None, :] % 2 == 0, np.sin(angle), np.cos(angle))


def check(dump, expect, softmax):
    for offset, base in [(0, 10000.0), (1000, 500000.0)]:
        d = dump("ch14_rotary_positions", "--offset", str(offset), "--base", str(base))
        tag = f"ch14 (offset {offset}, base {base:g})"
        X, W_Q, W_K = d["X"].astype(float), d["W_Q"].astype(float), d["W_K"].astype(float)
        Q, K = X @ W_Q, X @ W_K
        d_k = Q.shape[1]
        expect(f"{tag}: Q == X @ W_Q", d["Q"], Q)
        expect(f"{tag}: K == X @ W_K", d["K"], K)
        theta = base ** (-np.arange(0, d_k, 2) / d_k)
        expect(f"{tag}: angles == (offset + t) * theta_i", d["angles"],
               np.outer(offset + np.arange(Q.shape[0]), theta), tol=1e-6 + 2e-7 * (offset + Q.shape[0]))
        Q_rot, K_rot = rope(Q, offset, base, "interleaved"), rope(K, offset, base, "interleaved")
        expect(f"{tag}: Q_rot == Q turned, interleaved", d["Q_rot"], Q_rot)
        expect(f"{tag}: K_rot == K turned, interleaved", d["K_rot"], K_rot)
        scores = Q_rot @ K_rot.T
        expect(f"{tag}: scores == Q_rot @ K_rot.T", d["scores"], scores)
        expect(f"{tag}: weights == softmax(scores / sqrt(d_k))", d["weights"], softmax(scores / np.sqrt(d_k)))
        at_0 = rope(Q, 0, base, "interleaved") @ rope(K, 0, base, "interleaved").T
        expect(f"{tag}: scores == scores at offset 0", d["scores"], at_0)
        order = list(range(0, d_k, 2)) + list(range(1, d_k, 2))
        expect(f"{tag}: Q_halves == Q[:, order]", d["Q_halves"], Q[:, order])
        expect(f"{tag}: Q_rot_halves == Q_rot[:, order]", d["Q_rot_halves"], Q_rot[:, order])
        expect(f"{tag}: scores_halves == scores", d["scores_halves"], scores)
        mixed = rope(Q, offset, base, "halves") @ rope(K, offset, base, "halves").T
        expect(f"{tag}: scores_mixed == split halves on the interleaved layout", d["scores_mixed"], mixed)
        expect(f"{tag}: weights_mixed == softmax(scores_mixed / sqrt(d_k))", d["weights_mixed"],
               softmax(mixed / np.sqrt(d_k)))
        n, d_model = X.shape
        pe = X + sinusoids(n, offset, d_model, base)
        expect(f"{tag}: scores_pe == (X + PE) W_Q ((X + PE) W_K).T", d["scores_pe"], (pe @ W_Q) @ (pe @ W_K).T)
        pe0 = X + sinusoids(n, 0, d_model, base)
        expect(f"{tag}: scores_pe_0 == the same at offset 0", d["scores_pe_0"], (pe0 @ W_Q) @ (pe0 @ W_K).T)
        delta = np.arange(d["decay"].shape[0])
        theta = base ** (-np.arange(0, 128, 2) / 128)
        expect(f"{tag}: decay[:, 0] == (2/128) sum cos(delta theta)", d["decay"][:, 0],
               2 * np.cos(np.outer(delta, theta)).sum(axis=1) / 128)
        S = np.abs(np.cumsum(np.exp(1j * np.outer(delta, theta)), axis=1)).sum(axis=1)
        expect(f"{tag}: decay[:, 1] == sum_j |S_j| / its value at 0", d["decay"][:, 1], S / S[0])
