"""Chapter 22's GPT in PyTorch, for bench/gpt_side_by_side: nanoGPT's model.py (GPT-2's
architecture: biases, learned positions, pre-norm blocks, exact GELU, the output layer tied to
wte) and train.py's loop (AdamW β 0.9/0.99, weight decay 0.1 on the 2-D parameters only, 100
warmup steps then cosine to lr/10 at the last step, the gradient clipped at norm 1), with no
dropout, as the C++ (common/gpt/gpt_model.hpp, gpt_training.hpp) trains it. The parameters
carry nanoGPT's names, so a C++ --dump loads into it.

Shapes: B windows, T positions, d = d_model, H heads of d_h = d / H, V tokens.
"""
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    """x += attn(ln_1(x)); x += mlp(ln_2(x)); nanoGPT's names (attn.c_attn, mlp.c_fc, …)."""

    def __init__(self, d, heads, context):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(d)
        self.attn = nn.Module()
        self.attn.c_attn = nn.Linear(d, 3 * d)  # q, k, v side by side
        self.attn.c_proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = nn.Module()
        self.mlp.c_fc = nn.Linear(d, 4 * d)
        self.mlp.c_proj = nn.Linear(4 * d, d)
        causal = torch.tril(torch.ones(context, context, dtype=torch.bool))
        self.register_buffer("causal", causal, persistent=False)

    def attention(self, x):
        B, T, d = x.shape
        q, k, v = self.attn.c_attn(x).split(d, dim=2)  # each (B, T, d)
        # (B, T, d) → (B, H, T, d_h): each head its own columns
        q, k, v = (m.view(B, T, self.heads, d // self.heads).transpose(1, 2) for m in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads)  # (B, H, T, T)
        scores = scores.masked_fill(~self.causal[:T, :T], float("-inf"))
        z = F.softmax(scores, dim=-1) @ v  # (B, H, T, d_h)
        return self.attn.c_proj(z.transpose(1, 2).contiguous().view(B, T, d))

    def forward(self, x):
        x = x + self.attention(self.ln_1(x))
        return x + self.mlp.c_proj(F.gelu(self.mlp.c_fc(self.ln_2(x))))  # exact (erf) GELU


class GPT(nn.Module):
    def __init__(self, vocab, context, layers, heads, d):
        super().__init__()
        self.transformer = nn.Module()
        self.transformer.wte = nn.Embedding(vocab, d)
        self.transformer.wpe = nn.Embedding(context, d)
        self.transformer.h = nn.ModuleList(Block(d, heads, context) for _ in range(layers))
        self.transformer.ln_f = nn.LayerNorm(d)
        # nanoGPT's initialisation: every matrix N(0, 0.02), the residual projections (c_proj)
        # N(0, 0.02/√(2L)); biases 0, LayerNorm's weights 1
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2 * layers))
            elif p.dim() == 2:
                nn.init.normal_(p, 0.0, 0.02)
            elif "ln_" in name and name.endswith(".weight"):
                nn.init.ones_(p)
            else:
                nn.init.zeros_(p)

    def forward(self, tokens, targets=None):
        """Logits (B, T, V); with targets, also the mean cross-entropy."""
        T = tokens.shape[1]
        x = self.transformer.wte(tokens) + self.transformer.wpe(torch.arange(T))
        for block in self.transformer.h:
            x = block(x)
        logits = self.transformer.ln_f(x) @ self.transformer.wte.weight.T  # tied output layer
        if targets is None:
            return logits
        return logits, F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))


def load_dumped(parameters, heads):
    """A GPT holding the parameters {nanoGPT name: numpy array} (a C++ --dump, its sizes read off
    the shapes)."""
    vocab, d = parameters["transformer.wte.weight"].shape
    context = parameters["transformer.wpe.weight"].shape[0]
    layers = sum(1 for name in parameters if name.endswith(".ln_1.weight"))
    model = GPT(vocab, context, layers, heads, d)
    model.load_state_dict({name: torch.from_numpy(np.asarray(a, dtype=np.float32))
                           for name, a in parameters.items()})
    return model


def learning_rate(step, steps, lr, warmup=100):
    """nanoGPT's get_lr with lr_decay_iters = steps and min_lr = lr/10."""
    if step < warmup:
        return lr * (step + 1) / (warmup + 1)
    ratio = (step - warmup) / (steps - warmup)  # 0 → 1
    return lr / 10 + 0.5 * (1 + math.cos(math.pi * ratio)) * (lr - lr / 10)


def held_out_loss(model, ids, context, most=200, per_pass=32):
    """The mean loss over whole windows of the held-out ids (starts 0, T, 2T, …): all of them, or
    `most` spread evenly (window ⌊w·all/most⌋), as common/gpt/gpt_training.cpp measures it."""
    every = (len(ids) - 1) // context
    windows = min(every, most)
    starts = [(w * every // windows) * context for w in range(windows)]
    x = torch.stack([ids[s:s + context] for s in starts])
    y = torch.stack([ids[s + 1:s + context + 1] for s in starts])
    total = 0.0
    with torch.no_grad():
        for i in range(0, windows, per_pass):
            _, loss = model(x[i:i + per_pass], y[i:i + per_pass])
            total += loss.item() * len(x[i:i + per_pass])
    return total / windows


def train(text, steps, layers, heads, d_model, context, batch, lr, seed=1, log_every=250):
    """Trains on the first 90 % of the text's characters (ids: its distinct characters sorted by
    code point, as the C++ char tokenizer) and measures the rest. Returns the held-out loss after
    the last step, the log [(step, held-out loss)], and each step's wall and processor seconds
    (forward, backward, clipping and AdamW: the batch is made before the clock starts)."""
    symbols = sorted(set(text))
    index = {c: i for i, c in enumerate(symbols)}
    ids = torch.tensor([index[c] for c in text])
    split = len(text) * 9 // 10
    train_ids, held_ids = ids[:split], ids[split:]
    torch.manual_seed(seed)
    model = GPT(len(symbols), context, layers, heads, d_model)
    decayed = [p for p in model.parameters() if p.dim() >= 2]
    others = [p for p in model.parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW([{"params": decayed, "weight_decay": 0.1},
                                   {"params": others, "weight_decay": 0.0}],
                                  lr=lr, betas=(0.9, 0.99), eps=1e-8)
    generator = torch.Generator().manual_seed(seed)
    log, wall, processor = [(0, held_out_loss(model, held_ids, context))], [], []
    began = time.perf_counter(), time.process_time()
    for step in range(steps):
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, steps, lr)
        starts = torch.randint(len(train_ids) - context, (batch,), generator=generator)
        x = torch.stack([train_ids[s:s + context] for s in starts])
        y = torch.stack([train_ids[s + 1:s + 1 + context] for s in starts])
        t0, p0 = time.perf_counter(), time.process_time()  # every thread's processor time
        _, loss = model(x, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        wall.append(time.perf_counter() - t0)
        processor.append(time.process_time() - p0)
        if (step + 1) % log_every == 0 or step + 1 == steps:
            log.append((step + 1, held_out_loss(model, held_ids, context)))
    seconds = time.perf_counter() - began[0], time.process_time() - began[1]
    return {"held_out": log[-1][1], "log": log, "step_wall": wall, "step_processor": processor,
            "training_wall": seconds[0], "training_processor": seconds[1],
            "parameters": sum(p.numel() for p in model.parameters())}
