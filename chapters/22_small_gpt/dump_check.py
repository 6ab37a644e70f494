import math

import numpy as np

# A GPT of nanoGPT's architecture in float64 numpy, written apart from the C++: the dumped
# parameters (PyTorch's names and shapes) must give the dumped logits and every head's weights.


def layer_norm(x, weight, bias, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def gelu(z):
    return 0.5 * z * (1.0 + np.vectorize(math.erf)(z / math.sqrt(2.0)))


def linear(x, p, name):
    return x @ p[name + ".weight"].T + p[name + ".bias"]


def forward(p, tokens, heads):
    """Logits (n, V) of one sequence, and each block's weights (H, n, n)."""
    p = {k: v.astype(np.float64) for k, v in p.items() if k.startswith("transformer.")}
    n, d = len(tokens), p["transformer.wte.weight"].shape[1]
    dh = d // heads
    x = p["transformer.wte.weight"][tokens] + p["transformer.wpe.weight"][:n]
    weights, layer = [], 0
    while f"transformer.h.{layer}.ln_1.weight" in p:
        h = f"transformer.h.{layer}"
        qkv = linear(layer_norm(x, p[h + ".ln_1.weight"], p[h + ".ln_1.bias"]), p, h + ".attn.c_attn")
        q, k, v = (qkv[:, i * d:(i + 1) * d].reshape(n, heads, dh).transpose(1, 0, 2) for i in range(3))
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), q @ k.transpose(0, 2, 1) / math.sqrt(dh), -np.inf)
        a = np.exp(scores - scores.max(axis=-1, keepdims=True))
        a /= a.sum(axis=-1, keepdims=True)
        x = x + linear((a @ v).transpose(1, 0, 2).reshape(n, d), p, h + ".attn.c_proj")
        m = gelu(linear(layer_norm(x, p[h + ".ln_2.weight"], p[h + ".ln_2.bias"]), p, h + ".mlp.c_fc"))
        x = x + linear(m, p, h + ".mlp.c_proj")
        weights.append(a)
        layer += 1
    x = layer_norm(x, p["transformer.ln_f.weight"], p["transformer.ln_f.bias"])
    return x @ p["transformer.wte.weight"].T, weights


def check(dump, expect, softmax):
    small = ["--steps", "30", "--layers", "2", "--d-model", "32", "--context", "16", "--batch", "4",
             "--log-every", "10", "--text", "Call me Ishmael."]
    for extra, heads in ((["--heads", "2"], 2), (["--tokenizer", "char", "--heads", "4"], 4)):
        d = dump("ch22_small_gpt", *small, *extra)
        tag = "ch22 " + " ".join(extra)
        vectors = [k for k in d if k.startswith("transformer.") and (k.endswith(".bias") or ".ln_" in k)]
        expect(f"{tag}: biases and LayerNorm's weights are 1-D, as PyTorch's",
               np.array([d[k].ndim for k in vectors]), np.ones(len(vectors)), tol=0)
        expect(f"{tag}: c_attn.weight is (3d × d)", np.array(d["transformer.h.0.attn.c_attn.weight"].shape),
               np.array([3, 1]) * d["transformer.wte.weight"].shape[1], tol=0)
        tokens = d["token_ids"][0].astype(int)
        logits, weights = forward(d, tokens, heads)
        scale = max(1.0, float(np.abs(logits).max()))
        expect(f"{tag}: logits == the numpy GPT on the dumped parameters (relative)", d["logits"] / scale,
               logits / scale, tol=1e-4)
        for layer, a in enumerate(weights):
            for h in range(heads):
                expect(f"{tag}: layer{layer}_head{h}_weights == causal softmax(q k / √d_h) in numpy",
                       d[f"layer{layer}_head{h}_weights"], a[h], tol=1e-5)
        p = softmax(logits.astype(np.float64))
        top = np.argsort(-p, axis=1, kind="stable")[:, :5]
        expect(f"{tag}: top_ids == the five largest of softmax(logits)", d["top_ids"], top, tol=0)
        expect(f"{tag}: top_probabilities == their probabilities", d["top_probabilities"],
               np.take_along_axis(p, top, axis=1), tol=1e-5)
        log = d["loss_log"]
        expect(f"{tag}: loss_log's steps are 0, 10, 20, 30", log[:, 0], np.array([0, 10, 20, 30]), tol=0)
