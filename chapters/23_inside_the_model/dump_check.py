import importlib.util
import math
from pathlib import Path

import numpy as np

# Chapter 22's GPT in float64 numpy (its dump_check.py's LayerNorm, GELU and linear layers), here
# over a batch and with a head's output replaceable, written apart from the C++: from the dumped
# parameters it measures every head again (shares, induction score, the loss without it, patching)
# and reads the logit lens, and each number must be the dumped one.
_spec = importlib.util.spec_from_file_location(
    "ch22_dump_check", Path(__file__).resolve().parent.parent / "22_small_gpt" / "dump_check.py")
ch22 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ch22)

RUN = ["--layers", "2", "--d-model", "32", "--heads", "2", "--context", "16", "--batch", "4", "--steps", "600",
       "--lr", "0.01", "--log-every", "200", "--windows", "8", "--sequences", "4", "--passages", "4",
       "--text", "Call me Ishmael.", "--clean", "Then Ahab saw Ahab", "--corrupt", "Then Pip saw Ahab"]
HEADS = 2
ROLE_SHARE = 0.3  # math.hpp's role_share: an induction head's score reaches it


def forward(p, tokens, replaced=None):
    """tokens (B, n) through the model; replaced {(layer, head): rows (1, d_h) or (B, n, d_h)}.
    Returns the logits (B, n, V), each block's weights (B, H, n, n) and head outputs z
    (B, n, H·d_h), and the residual stream after 0 … L blocks (B, n, d)."""
    replaced = replaced or {}
    (B, n), d = tokens.shape, p["transformer.wte.weight"].shape[1]
    dh = d // HEADS
    x = p["transformer.wte.weight"][tokens] + p["transformer.wpe.weight"][:n]
    out = {"weights": [], "z": [], "residual": [x]}
    layer = 0
    while f"transformer.h.{layer}.ln_1.weight" in p:
        h = f"transformer.h.{layer}"
        qkv = ch22.linear(ch22.layer_norm(x, p[h + ".ln_1.weight"], p[h + ".ln_1.bias"]), p, h + ".attn.c_attn")
        q, k, v = (qkv[..., i * d:(i + 1) * d].reshape(B, n, HEADS, dh).transpose(0, 2, 1, 3) for i in range(3))
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(dh)
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
        a = np.exp(scores - scores.max(axis=-1, keepdims=True))
        a /= a.sum(axis=-1, keepdims=True)
        z = (a @ v).transpose(0, 2, 1, 3).copy()  # (B, n, H, d_h)
        for (l, head), rows in replaced.items():
            if l == layer:
                z[:, :, head, :] = rows
        z = z.reshape(B, n, d)
        x = x + ch22.linear(z, p, h + ".attn.c_proj")
        m = ch22.gelu(ch22.linear(ch22.layer_norm(x, p[h + ".ln_2.weight"], p[h + ".ln_2.bias"]), p, h + ".mlp.c_fc"))
        x = x + ch22.linear(m, p, h + ".mlp.c_proj")
        out["weights"].append(a), out["z"].append(z), out["residual"].append(x)
        layer += 1
    out["logits"] = lens(p, x)
    return out


def lens(p, x):
    """LN(x; ln_f) · wteᵀ: the output layer read on any residual stream."""
    return ch22.layer_norm(x, p["transformer.ln_f.weight"], p["transformer.ln_f.bias"]) @ p["transformer.wte.weight"].T


def losses(logits, targets):
    """−log softmax(logits)[target] at each position: (B, n)."""
    top = logits.max(axis=-1, keepdims=True)
    log_z = np.log(np.exp(logits - top).sum(axis=-1)) + top[..., 0]
    return log_z - np.take_along_axis(logits, targets[..., None], axis=-1)[..., 0]


def check(dump, expect, softmax):
    d = dump("ch23_inside_the_model", *RUN)
    p = {k: v.astype(np.float64) for k, v in d.items() if k.startswith("transformer.")}
    L = sum(1 for k in p if k.endswith(".ln_1.weight"))
    H, dh = HEADS, p["transformer.wte.weight"].shape[1] // HEADS
    tag = "ch23"

    def relative(claim, actual, expected, tol):
        scale = max(1.0, float(np.abs(expected).max()))
        expect(f"{tag}: {claim} (relative to {scale:.2g})", np.asarray(actual) / scale, np.asarray(expected) / scale, tol)

    # 1. The held-out windows: the loss, its value at each position and at each depth of the lens,
    #    each head's shares on queries 2 … T−1 and its mean output over every token.
    windows = d["held_out_windows"].astype(int)
    inputs, targets = windows[:, :-1], windows[:, 1:]
    T = inputs.shape[1]
    f = forward(p, inputs)
    model_loss = losses(f["logits"], targets)
    relative("loss_by_position == the numpy GPT's loss at each position", d["loss_by_position"],
             model_loss.mean(axis=0), 1e-5)
    relative("lens_loss == the loss of LN(x_l; ln_f) · wteᵀ after 0 … L blocks", d["lens_loss"],
             [losses(lens(p, x), targets).mean() for x in f["residual"]], 1e-5)
    i = np.arange(2, T)
    for name, keys in (("previous_token_score", i - 1), ("self_score", i), ("first_token_score", 0 * i)):
        shares = np.array([[f["weights"][l][:, h, i, keys].mean() for h in range(H)] for l in range(L)])
        expect(f"{tag}: {name} == the mean of A_h[i, key] over queries 2 … T−1 in numpy", d[name], shares, tol=1e-5)
    means = np.concatenate([f["z"][l].reshape(-1, H, dh).mean(axis=0) for l in range(L)])  # (L·H, d_h)
    expect(f"{tag}: mean_outputs == each head's z_h averaged over every held-out token", d["mean_outputs"], means,
           tol=1e-5)

    # 2. The induction score on the random sequences, each repeated.
    sequences = d["random_sequences"].astype(int)
    s = sequences.shape[1] // 2
    expect(f"{tag}: random_sequences are s tokens, then the same s again", sequences[:, s:], sequences[:, :s], tol=0)
    g = forward(p, sequences)
    q = np.arange(s, 2 * s)
    induction = np.array([[g["weights"][l][:, h, q, q - s + 1].mean() for h in range(H)] for l in range(L)])
    expect(f"{tag}: induction_score == mean A_h[i, i − s + 1] over the second copies in numpy",
           d["induction_score"], induction, tol=1e-5)

    # 3. The held-out loss without each head: removed (z_h ← 0), and replaced by its mean.
    for name, rows_of in (("loss_increase_removed", lambda k: np.zeros((1, dh))),
                          ("loss_increase_mean", lambda k: means[k][None, :])):
        increase = np.array([[losses(forward(p, inputs, {(l, h): rows_of(l * H + h)})["logits"], targets).mean()
                              - model_loss.mean() for h in range(H)] for l in range(L)])
        relative(f"{name} == the numpy GPT's held-out loss with that head's z_h replaced, minus its own",
                 d[name], increase, 1e-5)

    # 4. Olsson et al.'s test: the induction heads (score ≥ role_share, or else the highest), as
    #    many others (of the same blocks first, the lowest scores first); each removed, the loss
    #    on either copy of each passage.
    scores = d["induction_score"].ravel()
    order = sorted(range(L * H), key=lambda k: -scores[k])  # stable, as the C++'s
    induction_heads = [k for k in order if scores[k] >= ROLE_SHARE] or order[:1]
    rest = list(reversed(order[len(induction_heads):]))  # the lowest scores first
    blocks = {k // H for k in induction_heads}
    others = ([k for k in rest if k // H in blocks] + [k for k in rest if k // H not in blocks])[:len(induction_heads)]
    passages = d["repeated_passages"].astype(int)
    s = passages.shape[1] // 2
    expect(f"{tag}: repeated_passages are s held-out tokens, then the same s again", passages[:, s:],
           passages[:, :s], tol=0)
    removed = [{}, {(k // H, k % H): np.zeros((1, dh)) for k in induction_heads},
               {(k // H, k % H): np.zeros((1, dh)) for k in others}]
    copies = []
    for replaced in removed:
        loss = losses(forward(p, passages[:, :-1], replaced)["logits"], passages[:, 1:])
        copies.append([loss[:, :s - 1].mean(), loss[:, s:].mean()])
    relative("repeated_losses == the loss on each copy: the model, without the induction heads, without others",
             d["repeated_losses"], np.array(copies), 1e-5)
    by_position = losses(forward(p, inputs, removed[1])["logits"], targets).mean(axis=0)
    relative("loss_by_position_without_induction == the numpy GPT's, those heads removed",
             d["loss_by_position_without_induction"], by_position, 1e-5)
    early, late = slice(max(1, T // 16), max(max(1, T // 16) + 1, T // 8)), slice(T - max(1, T // 8), T)
    relative("in_context_scores == late − early loss, with and without the induction heads", d["in_context_scores"],
             [c[late].mean() - c[early].mean() for c in (model_loss.mean(axis=0), by_position)], 1e-4)

    # 5. Activation patching: each head's z_h from the clean run into the corrupt one.
    clean, corrupt = d["clean_ids"].astype(int), d["corrupt_ids"].astype(int)
    n = clean.shape[1]
    fc, fr = forward(p, clean), forward(p, corrupt)
    e = int(np.argmax(fc["logits"][0, -1]))
    corrupt_logit = fr["logits"][0, -1, e]
    clean_z = [z.reshape(1, n, H, dh) for z in fc["z"]]
    corrupt_z = [z.reshape(1, n, H, dh) for z in fr["z"]]

    def effect(l, h, positions):
        rows = corrupt_z[l][:, :, h, :].copy()
        rows[:, positions, :] = clean_z[l][:, positions, h, :]
        return forward(p, corrupt, {(l, h): rows})["logits"][0, -1, e] - corrupt_logit

    everywhere = np.array([[effect(l, h, slice(None)) for h in range(H)] for l in range(L)])
    relative("patch_effect == ℓ_e(the head patched from the clean run) − ℓ_e(corrupt) in numpy",
             d["patch_effect"], everywhere, 1e-4)
    relative("patch_effect_by_position == the same, one position patched", d["patch_effect_by_position"],
             np.array([[effect(l, h, [i]) for i in range(n)] for l in range(L) for h in range(H)]), 1e-4)
    gap = fc["logits"][0, -1, e] - corrupt_logit
    expect(f"{tag}: patch_restored == patch_effect / (ℓ_e(clean) − ℓ_e(corrupt)) (gap {gap:.3f})",
           d["patch_restored"], everywhere / gap, tol=1e-4 / min(1.0, abs(gap)))
    every = {(l, h): clean_z[l][:, :, h, :] for l in range(L) for h in range(H)}
    relative("all_patched_logits == the corrupt run with every head patched", d["all_patched_logits"],
             forward(p, corrupt, every)["logits"][0, -1], 1e-4)
    relative("clean_last_logits == the clean run's after its last token", d["clean_last_logits"],
             fc["logits"][0, -1], 1e-4)

    # 6. The logit lens on the sentence: the most likely next token after each block.
    tokens = d["token_ids"].astype(int)
    f = forward(p, tokens)
    relative("logits == the numpy GPT on the dumped parameters", d["logits"], f["logits"][0], 1e-4)
    for depth, x in enumerate(f["residual"]):
        relative(f"lens_logits_{depth} == LN(x_{depth}; ln_f) · wteᵀ", d[f"lens_logits_{depth}"], lens(p, x)[0], 1e-4)
    read = np.array([lens(p, x)[0] for x in f["residual"]])  # (L+1, n, V)
    probabilities = softmax(read)
    top = np.argmax(read, axis=-1)
    # Where two tokens are within float rounding of each other, either may be the most likely.
    two = np.sort(read, axis=-1)[..., -2:]
    clear = two[..., 1] - two[..., 0] > 1e-4
    expect(f"{tag}: lens_top_ids == the argmax at each depth ({clear.sum()} of {clear.size} clear of a tie)",
           np.where(clear, d["lens_top_ids"], 0), np.where(clear, top, 0), tol=0)
    expect(f"{tag}: lens_top_probabilities == their probability", d["lens_top_probabilities"],
           probabilities.max(axis=-1), tol=1e-5)
    for l in range(L):
        for h in range(H):
            expect(f"{tag}: layer{l}_head{h}_weights == causal softmax(q k / √d_h) in numpy",
                   d[f"layer{l}_head{h}_weights"], f["weights"][l][0, h], tol=1e-5)

    # 7. Composition (Elhage et al.), from the weights alone: each head's W_Q, W_K, W_V (d × d_h)
    #    with its block's ln_1 γ folded in, W_O (d_h × d); the d × d products written out.
    def circuit(l, h):
        w, g = p[f"transformer.h.{l}.attn.c_attn.weight"], p[f"transformer.h.{l}.ln_1.weight"]
        d_model = w.shape[1]
        q, k, v = (g[:, None] * w[i * d_model + h * dh:i * d_model + (h + 1) * dh].T for i in range(3))
        o = p[f"transformer.h.{l}.attn.c_proj.weight"][:, h * dh:(h + 1) * dh].T
        return q @ k.T, v @ o  # W_QK, W_OV (d × d)

    def score(a, b):
        return np.linalg.norm(a @ b) / (np.linalg.norm(a) * np.linalg.norm(b))

    writers, readers = [circuit(0, h) for h in range(H)], [circuit(1, h) for h in range(H)]
    for name, of in (("q_composition", lambda r: r[0]), ("k_composition", lambda r: r[0].T),
                     ("v_composition", lambda r: r[1])):
        expect(f"{tag}: {name} == ‖W_OV⁰ M¹‖_F / (‖W_OV⁰‖_F ‖M¹‖_F), the d × d products in numpy", d[name],
               np.array([[score(w[1], of(r)) for r in readers] for w in writers]), tol=1e-5)
    sequences = d["random_sequences"].astype(int)
    s = sequences.shape[1] // 2
    q = np.arange(s, 2 * s)

    def block1_induction(replaced):
        g = forward(p, sequences, replaced)
        return [g["weights"][1][:, h, q, q - s + 1].mean() for h in range(H)]

    expect(f"{tag}: induction_without_writer == block 1's induction scores, each block-0 head removed in numpy",
           d["induction_without_writer"],
           np.array([block1_induction({(0, w): np.zeros((1, dh))}) for w in range(H)] + [block1_induction({})]),
           tol=1e-5)

    # 8. The shift patching: the twins (first copy rotated one position later), and each block-0
    #    head's output taken from the twin at the first copy's positions; the reader's weights.
    twins = sequences.copy()
    twins[:, :s] = np.roll(sequences[:, :s], 1, axis=1)
    expect(f"{tag}: twin_sequences == each first copy one position later", d["twin_sequences"], twins, tol=0)
    reader = int(np.argmax(d["induction_score"][1]))
    g, t = forward(p, sequences), forward(p, twins)
    i = np.arange(s, 2 * s - 2)

    def on_keys(run):
        a = run["weights"][1][:, reader]
        return [a[:, i, i - s + 1].mean(), a[:, i, i - s + 2].mean()]

    rows = [on_keys(g), on_keys(t)]
    for w in range(H):
        spliced = g["z"][0].reshape(*sequences.shape, H, dh)[:, :, w, :].copy()
        spliced[:, :s] = t["z"][0].reshape(*sequences.shape, H, dh)[:, :s, w, :]
        rows.append(on_keys(forward(p, sequences, {(0, w): spliced})))
    expect(f"{tag}: shift_patching == L1 H{reader}'s weights on i − s + 1 and i − s + 2, block-0 heads spliced from "
           "the twins in numpy", d["shift_patching"], np.array(rows), tol=1e-5)

    # 9. The control: the control's parameters measured the same way (its induction scores, its copies).
    cm = {k[len("control."):]: v.astype(np.float64) for k, v in d.items() if k.startswith("control.transformer.")}
    g = forward(cm, d["control_random_sequences"].astype(int))
    expect(f"{tag}: control_induction_score == the control's mean A_h[i, i − s + 1] in numpy", d["control_induction_score"],
           np.array([[g["weights"][l][:, h, q, q - s + 1].mean() for h in range(H)] for l in range(L)]), tol=1e-5)
    passages = d["control_repeated_passages"].astype(int)
    loss = losses(forward(cm, passages[:, :-1])["logits"], passages[:, 1:])
    relative("control_repeated_losses' first row == the control's loss on each copy", d["control_repeated_losses"][0],
             [loss[:, :s - 1].mean(), loss[:, s:].mean()], 1e-5)
