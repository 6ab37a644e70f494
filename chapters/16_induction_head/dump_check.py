import numpy as np


def forward(d, tokens, layers, heads):
    """The attention-only model in numpy: every head's weights and the logits."""
    n = len(tokens)
    X = d["E"][tokens] + d["P"][:n]
    weights = {}
    causal = np.tril(np.ones((n, n)))
    for layer in range(1, layers + 1):
        out = np.zeros_like(X)
        for h in range(heads):
            s = f"_L{layer}_H{h}"
            Q, K, V = X @ d["W_Q" + s], X @ d["W_K" + s], X @ d["W_V" + s]
            scores = np.where(causal == 0, -np.inf, Q @ K.T / np.sqrt(Q.shape[1]))
            A = np.exp(scores - scores.max(axis=1, keepdims=True))
            A /= A.sum(axis=1, keepdims=True)
            weights[f"weights_L{layer}_H{h}"] = A
            out += A @ V @ d["W_O" + s]
        X = X + out
    return weights, X @ d["U"]


def check(dump, expect, softmax):
    for args, layers, heads in (([], 2, 2), (["--steps", "40", "--heads", "4", "--seed", "3"], 2, 4),
                                (["--steps", "20", "--layers", "1", "--half-length", "5"], 1, 2)):
        d = dump("ch16_induction_head", *args)
        tag = "ch16 " + (" ".join(args) or "default")
        tokens = d["tokens"][0].astype(int)
        half = len(tokens) // 2
        expect(f"{tag}: tokens: the second half repeats the first", tokens[half:], tokens[:half], tol=0)
        weights, _ = forward(d, tokens, layers, heads)
        for name, A in weights.items():
            expect(f"{tag}: {name} == causal softmax(Q Kᵀ / √d_h) of the dumped parameters", d[name], A)
        generated = d["generated_tokens"][0].astype(int)
        _, logits = forward(d, generated, layers, heads)
        expect(f"{tag}: cached_logits == the numpy forward pass on the generated tokens", d["cached_logits"], logits,
               tol=1e-3)
        prompt = half + 3
        expect(f"{tag}: each generated token is the argmax of the logits before it",
               generated[prompt:], logits[prompt - 1:-1].argmax(axis=1), tol=0)
        expect(f"{tag}: loss curves have one value per logged step", d["loss_first_half"].shape,
               d["loss_second_half"].shape, tol=0)
        acc = d["accuracy"]
        expect(f"{tag}: accuracy is a (1 × 2) of shares", float(acc.shape == (1, 2) and (0 <= acc).all()
                                                                 and (acc <= 1).all()), 1.0, tol=0)
