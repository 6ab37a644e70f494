import numpy as np


def masked_softmax(scores, mask):
    """−inf where the mask is 0, then a softmax; a row with nothing visible → zeros."""
    s = np.where(mask == 0, -np.inf, scores)
    top = s.max(axis=-1, keepdims=True)
    e = np.exp(s - np.where(np.isfinite(top), top, 0.0))
    z = e.sum(axis=-1, keepdims=True)
    return np.divide(e, z, out=np.zeros_like(e), where=z > 0)


def check(dump, expect, softmax):
    d = dump("ch06_masking")
    n, d_k = d["Q"].shape
    for m in ("Q", "K", "V"):
        expect(f"ch06: {m} == X @ W_{m}", d[m], d["X"] @ d[f"W_{m}"])
    expect("ch06: scores == Q @ K.T", d["scores"], d["Q"] @ d["K"].T)
    expect("ch06: mask is the lower triangle", d["mask"], np.tril(np.ones((n, n), np.float32)))
    scaled = d["Q"] @ d["K"].T / np.sqrt(d_k)
    hidden = d["mask"] == 0
    expect("ch06: masked_scores is -inf exactly above the diagonal",
           np.isneginf(d["masked_scores"]).astype(np.float32), hidden.astype(np.float32), tol=0)
    expect("ch06: masked_scores = Q @ K.T / sqrt(d_k) elsewhere", d["masked_scores"][~hidden], scaled[~hidden])
    expect("ch06: weights = softmax with the future hidden", d["weights"], masked_softmax(scaled, d["mask"]))
    expect("ch06: weights are exactly 0 where masked", d["weights"][d["mask"] == 0],
           np.zeros(int((d["mask"] == 0).sum()), np.float32), tol=0)
    expect("ch06: rows of weights sum to 1", d["weights"].sum(axis=1), np.ones(n), tol=1e-6)
    # the other way: softmax over everything, zero the future, renormalise
    w = softmax(scaled) * d["mask"]
    expect("ch06: softmax, zero, renormalise = the -inf way", w / w.sum(axis=1, keepdims=True), d["weights"])
    expect("ch06: output == weights @ V", d["output"], d["weights"] @ d["V"])

    # the padded sentence of the batch: its projections from the dumped embeddings
    Q, K, V = (d["padded_X"] @ d[w] for w in ("W_Q", "W_K", "W_V"))
    real = int(d["padding_mask"][1].sum())
    expect("ch06: padded_mask repeats the padding row", d["padded_mask"],
           np.tile(d["padding_mask"][1], (d["padded_mask"].shape[0], 1)))
    expect("ch06: padded_weights", d["padded_weights"],
           masked_softmax(Q @ K.T / np.sqrt(d_k), d["padded_mask"]), tol=1e-4)
    expect("ch06: pad keys get weight 0", d["padded_weights"][:, real:], 0 * d["padded_weights"][:, real:], tol=0)
    expect("ch06: padded_output == padded_weights @ V", d["padded_output"], d["padded_weights"] @ V, tol=1e-4)

    # the left-padded sentence: rows with every key hidden are zeros, never NaN
    left = d["left_mask"]
    empty = left.sum(axis=1) == 0
    expect("ch06: left_mask has rows with nothing visible", float(empty.any()), 1.0, tol=0)
    Q, K, V = (d["left_X"] @ d[w] for w in ("W_Q", "W_K", "W_V"))
    expect("ch06: left_weights = masked softmax (zeros for rows with nothing visible)", d["left_weights"],
           masked_softmax(Q @ K.T / np.sqrt(d_k), left))
    expect("ch06: no NaN in left_weights and left_output",
           float(np.isfinite(d["left_weights"]).all() and np.isfinite(d["left_output"]).all()), 1.0, tol=0)
    expect("ch06: empty rows have a zero output", d["left_output"][empty], 0 * d["left_output"][empty], tol=0)
    expect("ch06: left_output == left_weights @ V", d["left_output"], d["left_weights"] @ V)
