import re

import numpy as np


def rope(M, base=10000.0):
    """Interleaved RoPE (RoFormer's layout): row t at position t, pair (2p, 2p+1) turned by t·θ_p."""
    n, d = M.shape
    theta = base ** (-np.arange(0, d, 2) / d)            # (d/2)
    angle = np.arange(n)[:, None] * theta[None, :]        # (n, d/2)
    z = (M[:, 0::2] + 1j * M[:, 1::2]) * np.exp(1j * angle)
    out = np.empty_like(M)
    out[:, 0::2], out[:, 1::2] = z.real, z.imag
    return out


def latent_attention(X, W, h, softmax):
    """numpy's MLA, the naive form: K and V from c_KV, decoupled RoPE key shared by every head."""
    n = X.shape[0]
    d_h = W["W_UK"].shape[1] // h
    d_r = W["W_KR"].shape[1]
    c_KV, c_Q = X @ W["W_DKV"], X @ W["W_DQ"]
    K, V, Q = c_KV @ W["W_UK"], c_KV @ W["W_UV"], c_Q @ W["W_UQ"]
    K_rope = rope(X @ W["W_KR"])
    Q_rope_raw = c_Q @ W["W_QR"]
    Q_rope = np.concatenate([rope(Q_rope_raw[:, i * d_r:(i + 1) * d_r]) for i in range(h)], axis=1)
    future = np.triu(np.ones((n, n), dtype=bool), 1)
    weights, heads = [], []
    for i in range(h):
        cols, rcols = slice(i * d_h, (i + 1) * d_h), slice(i * d_r, (i + 1) * d_r)
        s = (Q[:, cols] @ K[:, cols].T + Q_rope[:, rcols] @ K_rope.T) / np.sqrt(d_h + d_r)
        w = softmax(np.where(future, -np.inf, s))
        weights.append(w)
        heads.append(w @ V[:, cols])
    concat = np.concatenate(heads, axis=1)
    return dict(c_KV=c_KV, K=K, V=V, K_rope=K_rope, Q=Q, Q_rope=Q_rope, concat=concat), weights, concat @ W["W_O"]


def check(dump, expect, softmax):
    for args in ([], ["--heads", "2", "--head-dim", "6", "--latent", "5", "--rope-dim", "2", "--seed", "3"],
                 ["--heads", "1", "--latent", "4", "--head-dim", "4", "--q-latent", "3"]):
        d = dump("ch18_latent_attention", *args)
        h = len([name for name in d if re.fullmatch(r"head\d+_weights", name)])
        tag = f"ch18 {' '.join(args) or '(default)'}"
        mats, weights, output = latent_attention(d["X"], d, h, softmax)
        for name, value in mats.items():
            expect(f"{tag}: {name}", d[name], value)
        for i in range(h):
            expect(f"{tag}: head{i}_weights (causal)", d[f"head{i}_weights"], weights[i])
            expect(f"{tag}: head{i}_weights_absorbed == head{i}_weights", d[f"head{i}_weights_absorbed"], weights[i])
        expect(f"{tag}: output_naive", d["output_naive"], output)
        # the absorbed form, from its own dumped matrices
        d_h, d_c = d["W_UK"].shape[1] // h, d["W_DKV"].shape[1]
        W_UK, W_UV, W_O = d["W_UK"], d["W_UV"], d["W_O"]
        Q_absorbed = np.concatenate([d["Q"][:, i * d_h:(i + 1) * d_h] @ W_UK[:, i * d_h:(i + 1) * d_h].T
                                     for i in range(h)], axis=1)
        W_UVO = np.concatenate([W_UV[:, i * d_h:(i + 1) * d_h] @ W_O[i * d_h:(i + 1) * d_h] for i in range(h)], axis=0)
        expect(f"{tag}: Q_absorbed == Q_i · W_UK_iᵀ", d["Q_absorbed"], Q_absorbed)
        expect(f"{tag}: W_UVO == W_UV_i · W_O_i stacked", d["W_UVO"], W_UVO)
        latent = np.concatenate([weights[i] @ d["c_KV"] for i in range(h)], axis=1)
        expect(f"{tag}: latent_concat", d["latent_concat"], latent)
        expect(f"{tag}: output_absorbed == output_naive", d["output_absorbed"], output)
        expect(f"{tag}: cache per token = d_c + d_h^R", float(d["c_KV"].shape[1] + d["K_rope"].shape[1]),
               float(d_c + d["W_KR"].shape[1]))
