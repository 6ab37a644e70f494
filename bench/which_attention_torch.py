"""Chapter 24's twelve GPTs in PyTorch, one module per attention, written from the formulas of
common/gpt/gpt_attention.hpp and nothing of the C++: bench/which_attention_side_by_side loads each
variant's --dump into its module (load_state_dict, strict: the names and shapes must be the ones
the doc lists) and compares the logits and the table's held-out loss.

Shapes: B windows, T positions, d = d_model, H heads of d_h = d / H, g key–value heads.
"""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

VARIANTS = ["mha", "mqa", "gqa", "mla", "rope", "window", "window-sinks", "sink-logit", "top-k", "linear",
            "deltanet", "gated-deltanet"]
SINKS = 4  # chapter 24's sinks beside its window (math.hpp's sinks_kept)


def turns(n, r):
    """cos and sin of i·θ_p, θ_p = 10000^(−2p/r), i < n, p < r/2: computed in double, rounded once."""
    theta = 10000.0 ** (-2.0 * np.arange(r // 2) / r)
    angle = np.arange(n)[:, None] * theta[None, :]
    return torch.from_numpy(np.cos(angle).astype(np.float32)), torch.from_numpy(np.sin(angle).astype(np.float32))


def rope(x):
    """x (…, T, r) turned by position, pair (2p, 2p + 1) of row i by i·θ_p."""
    cos, sin = turns(x.shape[-2], x.shape[-1])
    a, b = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = a * cos - b * sin
    out[..., 1::2] = a * sin + b * cos
    return out


class Attention(nn.Module):
    """One block's attention for a variant; its parameters under the names chapter 24 dumps."""

    def __init__(self, variant, d, heads, context):
        super().__init__()
        self.variant, self.heads, self.dh = variant, heads, d // heads
        dh = self.dh
        self.g = {"mqa": 1, "gqa": heads // 2}.get(variant, heads)
        self.window = context // 4 if variant in ("window", "window-sinks", "top-k") else 0
        self.r, self.dc = dh // 2, 4 * dh  # MLA's RoPE width and latent
        width = d + (heads + 1) * self.r + self.dc if variant == "mla" else d + 2 * self.g * dh
        self.c_attn = nn.Linear(d, width)
        self.c_proj = nn.Linear(d, d)
        if variant == "mla":
            self.kv_up = nn.Linear(self.dc, 2 * d)
        if variant == "sink-logit":
            self.sinks = nn.Parameter(torch.zeros(heads))
        if variant in ("deltanet", "gated-deltanet"):
            self.b_proj = nn.Linear(d, heads, bias=False)
        if variant == "gated-deltanet":
            self.a_proj = nn.Linear(d, heads)

    def split(self, qkv):
        """[q k v] (B, T, ·) → q (B, H, T, ·), k and v (B, H, T, ·): head h reads key–value head h // (H/g)."""
        B, T, _ = qkv.shape
        H, g, dh, d = self.heads, self.g, self.dh, self.heads * self.dh
        if self.variant == "mla":  # [q q_R c_KV k_R]; [k v] = kv_up(c_KV); every head's key ends with RoPE(k_R)
            q = qkv[..., :d].view(B, T, H, dh).transpose(1, 2)
            q_rope = rope(qkv[..., d:d + H * self.r].view(B, T, H, self.r).transpose(1, 2))
            kv = self.kv_up(qkv[..., d + H * self.r:d + H * self.r + self.dc])
            k_rope = rope(qkv[..., d + H * self.r + self.dc:]).unsqueeze(1).expand(B, H, T, self.r)
            k = kv[..., :d].view(B, T, H, dh).transpose(1, 2)
            v = kv[..., d:].view(B, T, H, dh).transpose(1, 2)
            return torch.cat([q, q_rope], dim=-1), torch.cat([k, k_rope], dim=-1), v
        q = qkv[..., :d].view(B, T, H, dh).transpose(1, 2)
        k = qkv[..., d:d + g * dh].view(B, T, g, dh).transpose(1, 2).repeat_interleave(H // g, dim=1)
        v = qkv[..., d + g * dh:].view(B, T, g, dh).transpose(1, 2).repeat_interleave(H // g, dim=1)
        if self.variant == "rope":
            q, k = rope(q), rope(k)
        return q, k, v

    def softmax_weights(self, q, k):
        """(B, H, T, T): causal softmax of q kᵀ / √width over the keys each variant reads."""
        T = q.shape[-2]
        i, j = torch.arange(T)[:, None], torch.arange(T)[None, :]
        visible = j <= i
        if self.variant in ("window", "window-sinks"):
            visible = visible & ((j + self.window > i) | (j < (SINKS if self.variant == "window-sinks" else 0)))
        raw = q @ k.transpose(-2, -1)
        visible = visible.expand(raw.shape)
        if self.variant == "top-k":  # the k visible keys of the largest q · k
            kept = raw.masked_fill(~visible, float("-inf")).topk(min(self.window, T), dim=-1).indices
            visible = visible & torch.zeros_like(visible).scatter(-1, kept, True)
        scores = (raw / math.sqrt(q.shape[-1])).masked_fill(~visible, float("-inf"))
        if self.variant == "sink-logit":  # one more column, s_h, in every row's softmax, then dropped
            sink = self.sinks.view(1, -1, 1, 1).expand(*scores.shape[:-1], 1)
            return F.softmax(torch.cat([scores, sink], dim=-1), dim=-1)[..., :-1]
        return F.softmax(scores, dim=-1)

    def weights(self, x, q, k):
        """Every head's weights A (B, H, T, T) with z = A v; the delta rules' state unrolled."""
        if self.variant in ("deltanet", "gated-deltanet"):
            T = q.shape[-2]
            identity = torch.eye(T).expand(*q.shape[:2], T, T)
            return self.delta_rule(x, q, k, identity)
        if self.variant == "linear":
            phi_q, phi_k = F.elu(q) + 1, F.elu(k) + 1
            A = torch.tril(phi_q @ phi_k.transpose(-2, -1))
            return A / A.sum(dim=-1, keepdim=True)
        return self.softmax_weights(q, k)

    def delta_rule(self, x, q, k, v):
        """S = α S; S += β k̂ (v − Sᵀ k̂)ᵀ; z = Sᵀ q̂, token by token (α = 1 for DeltaNet)."""
        unit = lambda m: m / m.norm(dim=-1, keepdim=True).clamp(min=1e-6)  # noqa: E731
        q, k = unit(q), unit(k)
        beta = torch.sigmoid(self.b_proj(x)).transpose(1, 2)  # (B, H, T)
        alpha = torch.sigmoid(self.a_proj(x)).transpose(1, 2) if self.variant == "gated-deltanet" else None
        S = torch.zeros(*q.shape[:2], q.shape[-1], v.shape[-1])  # (B, H, keys, values)
        z = []
        for t in range(q.shape[-2]):
            if alpha is not None:
                S = S * alpha[..., t, None, None]
            error = v[..., t, :] - (S * k[..., t, :, None]).sum(dim=-2)  # v − Sᵀ k̂
            S = S + beta[..., t, None, None] * k[..., t, :, None] * error[..., None, :]
            z.append((S * q[..., t, :, None]).sum(dim=-2))
        return torch.stack(z, dim=-2)

    def forward(self, x):
        """x = ln_1(·) (B, T, d) → c_proj([z_0 … z_{H−1}]), and every head's weights."""
        B, T, d = x.shape
        q, k, v = self.split(self.c_attn(x))
        A = self.weights(x, q, k)
        z = A @ v  # (B, H, T, d_h)
        return self.c_proj(z.transpose(1, 2).reshape(B, T, d)), A


class Block(nn.Module):
    def __init__(self, variant, d, heads, context):
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = Attention(variant, d, heads, context)
        self.mlp = nn.Module()
        self.mlp.c_fc, self.mlp.c_proj = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        out, A = self.attn(self.ln_1(x))
        x = x + out
        return x + self.mlp.c_proj(F.gelu(self.mlp.c_fc(self.ln_2(x)))), A


class GPT(nn.Module):
    """nanoGPT's GPT with the variant's attention; no wpe with RoPE or MLA (their turns give positions)."""

    def __init__(self, variant, vocab, context, layers, heads, d):
        super().__init__()
        self.transformer = nn.Module()
        self.transformer.wte = nn.Embedding(vocab, d)
        if variant not in ("rope", "mla"):
            self.transformer.wpe = nn.Embedding(context, d)
        self.transformer.h = nn.ModuleList(Block(variant, d, heads, context) for _ in range(layers))
        self.transformer.ln_f = nn.LayerNorm(d)

    def forward(self, tokens):
        """Logits (B, T, V) and every head's weights [layer · H + head] (B, T, T)."""
        x = self.transformer.wte(tokens)
        if hasattr(self.transformer, "wpe"):
            x = x + self.transformer.wpe(torch.arange(tokens.shape[1]))
        weights = []
        for block in self.transformer.h:
            x, A = block(x)
            weights.extend(A.unbind(dim=1))
        return self.transformer.ln_f(x) @ self.transformer.wte.weight.T, weights


def load_dumped(variant, parameters, heads, context):
    """The variant's GPT holding a chapter 24 --dump's parameters (strict: every name, every shape)."""
    vocab, d = parameters["transformer.wte.weight"].shape
    layers = sum(1 for name in parameters if name.endswith(".ln_1.weight"))
    model = GPT(variant, vocab, context, layers, heads, d)
    model.load_state_dict({name: torch.from_numpy(np.asarray(a, dtype=np.float32)) for name, a in parameters.items()})
    return model


def mean_loss(model, windows, per_pass=32):
    """The mean cross-entropy over every position of the windows (W × T + 1 ids: read T, predict T)."""
    total, count = 0.0, 0
    with torch.no_grad():
        for i in range(0, len(windows), per_pass):
            rows = torch.from_numpy(windows[i:i + per_pass].astype(np.int64))
            logits, _ = model(rows[:, :-1])
            total += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), rows[:, 1:].reshape(-1),
                                     reduction="sum").item()
            count += rows[:, 1:].numel()
    return total / count
