import importlib.util
import math
from pathlib import Path

import numpy as np

# Every variant's GPT in float64 numpy, written apart from the C++: the dumped parameters of
# --variant NAME (nanoGPT's names, and the extra ones the doc lists) must give its dumped logits
# and its heads' weights. LayerNorm, GELU and nn.Linear are chapter 22's numpy GPT's.
_spec = importlib.util.spec_from_file_location(
    "ch22_dump_check", Path(__file__).resolve().parent.parent / "22_small_gpt" / "dump_check.py")
ch22 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ch22)

# A small recipe (chapter.toml's fast flags, the default 4 heads): ten models in about a second.
SMALL = ["--steps", "3", "--d-model", "16", "--context", "16", "--batch", "2", "--windows", "4",
         "--passages", "4", "--tokenizer", "char"]
HEADS, CONTEXT = 4, 16
WINDOW, SINKS = CONTEXT // 4, 4  # math.cpp's window_of (also top-k's k) and sinks_kept


def rope(x):
    """x (n, heads, d_h) turned by position: pair (2p, 2p + 1) of row i by i · 10000^(−2p/d_h)."""
    n, dh = x.shape[0], x.shape[2]
    angle = np.arange(n)[:, None] * 10000.0 ** (-2.0 * np.arange(dh // 2) / dh)[None, :]
    c, s = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]
    out = x.copy()
    out[..., 0::2] = x[..., 0::2] * c - x[..., 1::2] * s
    out[..., 1::2] = x[..., 0::2] * s + x[..., 1::2] * c
    return out


def sigmoid(s):
    return 1.0 / (1.0 + np.exp(-s))


def delta_rule(q, k, v, beta, alpha):
    """One head's delta rule (gated when alpha is given): z (n, d_h)."""
    unit = lambda x: x / max(np.linalg.norm(x), 1e-6)  # noqa: E731
    S = np.zeros((q.shape[1], v.shape[1]))  # keys × values
    z = np.zeros((q.shape[0], v.shape[1]))
    for t in range(q.shape[0]):
        kt = unit(k[t])
        S = S * (1.0 if alpha is None else alpha[t])
        S = S + beta[t] * np.outer(kt, v[t] - S.T @ kt)
        z[t] = S.T @ unit(q[t])
    return z


def head(q, k, v, variant, sink, beta=None, alpha=None):
    """One head: its weights A (n, n) with z = A v, for every variant."""
    n = q.shape[0]
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    if variant in ("deltanet", "gated-deltanet"):  # the state unrolled: the rule is linear in v
        return delta_rule(q, k, np.eye(n), beta, alpha)
    if variant == "linear":
        phi = lambda x: np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))  # noqa: E731
        A = np.where(j <= i, phi(q) @ phi(k).T, 0.0)
        return A / A.sum(axis=1, keepdims=True)
    visible = j <= i
    if variant in ("window", "window-sinks"):
        visible &= (j + WINDOW > i) | (j < (SINKS if variant == "window-sinks" else 0))
    if variant == "top-k":  # the k visible keys of the largest q·k (equal: the lower position)
        raw = q @ k.T
        for row in range(n):
            kept = sorted(range(row + 1), key=lambda col: (-raw[row, col], col))[:WINDOW]
            visible[row] = np.isin(np.arange(n), kept)
    scores = np.where(visible, q @ k.T / math.sqrt(q.shape[1]), -np.inf)
    largest = scores.max(axis=1, keepdims=True)
    if sink is not None:
        largest = np.maximum(largest, sink)
    e = np.exp(scores - largest)
    total = e.sum(axis=1, keepdims=True) + (np.exp(sink - largest) if sink is not None else 0.0)
    return e / total


def forward(p, tokens, variant):
    """Logits (n, V) of one sequence, and every head's weights [layer · H + head] (n, n)."""
    p = {k: v.astype(np.float64) for k, v in p.items() if k.startswith("transformer.")}
    n, d = len(tokens), p["transformer.wte.weight"].shape[1]
    H, dh = HEADS, d // HEADS
    g = {"mqa": 1, "gqa": H // 2}.get(variant, H)  # key–value heads; head h reads h // (H / g)
    r, dc = dh // 2, 4 * dh  # MLA's RoPE part and latent
    x = p["transformer.wte.weight"][tokens]
    if variant not in ("rope", "mla"):
        x = x + p["transformer.wpe.weight"][:n]
    weights, layer = [], 0
    while f"transformer.h.{layer}.ln_1.weight" in p:
        b = f"transformer.h.{layer}."
        a = ch22.layer_norm(x, p[b + "ln_1.weight"], p[b + "ln_1.bias"])
        qkv = ch22.linear(a, p, b + "attn.c_attn")
        q = qkv[:, :d].reshape(n, H, dh)
        if variant != "mla":
            k = qkv[:, d:d + g * dh].reshape(n, g, dh)
            v = qkv[:, d + g * dh:].reshape(n, g, dh)
        if variant == "rope":
            q, k = rope(q), rope(k)
        if variant == "mla":  # [q q_R c_KV k_R]; [k v] from c_KV; every head's key ends with k_R
            latent = qkv[:, d + H * r:d + H * r + dc]
            kv = ch22.linear(latent, p, b + "attn.kv_up")
            k_rope = rope(qkv[:, d + H * r + dc:].reshape(n, 1, r))
            q = np.concatenate([q, rope(qkv[:, d:d + H * r].reshape(n, H, r))], axis=2)
            k = np.concatenate([kv[:, :d].reshape(n, H, dh), np.repeat(k_rope, H, axis=1)], axis=2)
            v = kv[:, d:].reshape(n, H, dh)
        z = np.zeros((n, d))
        for h in range(H):
            kv = h // (H // g)
            sink = p[b + "attn.sinks"][h] if variant == "sink-logit" else None
            beta = sigmoid(a @ p[b + "attn.b_proj.weight"][h]) if "deltanet" in variant else None
            alpha = (sigmoid(a @ p[b + "attn.a_proj.weight"][h] + p[b + "attn.a_proj.bias"][h])
                     if variant == "gated-deltanet" else None)
            A = head(q[:, h], k[:, kv], v[:, kv], variant, sink, beta, alpha)
            z[:, h * dh:(h + 1) * dh] = A @ v[:, kv]
            weights.append(A)
        x = x + ch22.linear(z, p, b + "attn.c_proj")
        m = ch22.gelu(ch22.linear(ch22.layer_norm(x, p[b + "ln_2.weight"], p[b + "ln_2.bias"]), p, b + "mlp.c_fc"))
        x = x + ch22.linear(m, p, b + "mlp.c_proj")
        layer += 1
    x = ch22.layer_norm(x, p["transformer.ln_f.weight"], p["transformer.ln_f.bias"])
    return x @ p["transformer.wte.weight"].T, weights


# The parameters each variant adds to nanoGPT's, per block (the doc lists them).
EXTRA = {"mla": ["attn.kv_up.weight", "attn.kv_up.bias"], "sink-logit": ["attn.sinks"], "deltanet": ["attn.b_proj.weight"],
         "gated-deltanet": ["attn.b_proj.weight", "attn.a_proj.weight", "attn.a_proj.bias"]}


def check(dump, expect, softmax):
    variants = ["mha", "mqa", "gqa", "mla", "rope", "window", "window-sinks", "sink-logit", "top-k", "linear", "deltanet",
                "gated-deltanet"]
    for variant in variants:
        d = dump("ch24_which_attention", *SMALL, "--variant", variant, "--text", "Call me Ishmael.")
        tag = f"ch24 --variant {variant}"
        if variant == variants[0]:
            # the held-out column is the mean over the positions, for every variant
            expect("ch24: measures[:, 2] == the mean of each row of loss_by_position",
                   d["measures"][:, 2], d["loss_by_position"].astype(np.float64).mean(axis=1))
            # over the seeds: the first seed's loss is the model's; the mean, lowest, highest and
            # the rank (1 + the variants each of whose seeds ended below each of this one's)
            by_seed = d["held_out_by_seed"].astype(np.float64)
            expect("ch24: held_out_by_seed[:, 0] == measures[:, 2] (the first seed is the model read back)",
                   by_seed[:, 0], d["measures"][:, 2], tol=1e-7)
            expect("ch24: seed_mean, seed_low, seed_high == numpy's over each row of held_out_by_seed",
                   np.concatenate([d["seed_mean"][:, 0], d["seed_low"][:, 0], d["seed_high"][:, 0]]),
                   np.concatenate([by_seed.mean(axis=1), by_seed.min(axis=1), by_seed.max(axis=1)]), tol=1e-6)
            below = [(by_seed[:, None, :, None] < by_seed[None, k, None, :]).all(axis=(2, 3)).sum()
                     for k in range(len(by_seed))]
            expect("ch24: seed_rank == 1 + the variants each of whose seeds ended below each of its own",
                   d["seed_rank"][:, 0], 1.0 + np.array(below, dtype=float), tol=0)
        d_model = d["transformer.wte.weight"].shape[1]
        g, dh = {"mqa": 1, "gqa": HEADS // 2}.get(variant, HEADS), d_model // HEADS
        rows = d_model + (HEADS + 1) * (dh // 2) + 4 * dh if variant == "mla" else d_model + 2 * g * dh
        expect(f"{tag}: c_attn.weight is ({rows} × d): d + 2·g·d_h, g = {g} (MLA: d + H·d_h/2 + d_c + d_h/2)",
               np.array(d["transformer.h.0.attn.c_attn.weight"].shape), np.array([rows, d_model]), tol=0)
        extra = sorted(k.split(".h.0.")[1] for k in d if k.startswith("transformer.h.0.attn.")
                       and not k.split(".h.0.")[1].startswith(("attn.c_attn", "attn.c_proj")))
        expect(f"{tag}: its extra parameters are {EXTRA.get(variant, [])}, and wpe only without RoPE or MLA",
               np.array([extra == sorted(EXTRA.get(variant, [])), ("transformer.wpe.weight" in d) == (variant not in ("rope", "mla"))],
                        dtype=float), np.ones(2), tol=0)
        tokens = d["token_ids"][0].astype(int)
        logits, weights = forward(d, tokens, variant)
        scale = max(1.0, float(np.abs(logits).max()))
        expect(f"{tag}: logits == the numpy GPT of this variant on the dumped parameters (relative)",
               d["logits"] / scale, logits / scale, tol=1e-4)
        worst = max(float(np.abs(d[f"layer{m // HEADS}_head{m % HEADS}_weights"] - A).max())
                    for m, A in enumerate(weights))
        expect(f"{tag}: every head's weights == numpy's (the delta rules': their state unrolled)",
               np.array([worst]), np.array([0.0]), tol=1e-5)
        # the table's held-out loss: numpy's mean cross-entropy on the dumped windows
        losses = []
        for row in d["held_out_windows"].astype(int):
            z, _ = forward(d, row[:-1], variant)
            z = z - z.max(axis=1, keepdims=True)
            losses.extend(np.log(np.exp(z).sum(axis=1)) - z[np.arange(len(row) - 1), row[1:]])
        expect(f"{tag}: the table's held-out loss == numpy's mean loss on the dumped windows (relative)",
               np.array([d["measures"][variants.index(variant), 2] / np.mean(losses)]), np.array([1.0]), tol=1e-6)
