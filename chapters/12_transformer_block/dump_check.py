import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)  # divided by d, as PyTorch
    return gamma * (x - mu) / np.sqrt(var + eps) + beta


def gelu(z):
    return 0.5 * z * (1 + np.tanh(np.sqrt(2 / np.pi) * (z + 0.044715 * z**3)))


def check(dump, expect, softmax):
    for args in [(), ("--post-norm",), ("--heads", "5", "--activation", "gelu", "--seed", "7")]:
        d = dump("ch12_transformer_block", *args)
        name = "ch12 " + (" ".join(args) or "default")
        post = "--post-norm" in args
        act = gelu if "gelu" in args else (lambda z: np.maximum(0, z))
        h = int(args[args.index("--heads") + 1]) if "--heads" in args else 2
        X = d["X"].astype(np.float64)
        p = {k: v.astype(np.float64) for k, v in d.items()}
        g1, b1, g2, b2 = p["gamma1"][0], p["beta1"][0], p["gamma2"][0], p["beta2"][0]

        def mha(x):
            Q, K, V = x @ p["W_Q"] + p["b_Q"][0], x @ p["W_K"] + p["b_K"][0], x @ p["W_V"] + p["b_V"][0]
            n, dm = x.shape
            dk = dm // h
            heads = [softmax(Q[:, i*dk:(i+1)*dk] @ K[:, i*dk:(i+1)*dk].T / np.sqrt(dk)) @ V[:, i*dk:(i+1)*dk]
                     for i in range(h)]
            return np.concatenate(heads, axis=1) @ p["W_O"] + p["b_O"][0], (Q, K, V)

        def ffn(x):
            return act(x @ p["W_1"] + p["b_1"][0]) @ p["W_2"] + p["b_2"][0]

        # each piece from its own dumped input
        ln1_in = p["residual1"] if post else X
        ln2_in = p["residual2"] if post else p["residual1"]
        ffn_in = p["ln1"] if post else p["ln2"]
        expect(f"{name}: ln1 = LayerNorm", d["ln1"], layer_norm(ln1_in, g1, b1))
        expect(f"{name}: ln2 = LayerNorm", d["ln2"], layer_norm(ln2_in, g2, b2))
        x_hat = (p["ln1"] - b1) / g1  # undo γ and β: the normalised rows
        expect(f"{name}: (ln1 − β1) / γ1 rows have mean 0", x_hat.mean(axis=1), np.zeros(len(X)), 1e-5)
        expect(f"{name}: (ln1 − β1) / γ1 rows have variance 1", x_hat.var(axis=1), np.ones(len(X)), 1e-3)
        expect(f"{name}: hidden = act(x · W_1 + b_1)", d["hidden"], act(ffn_in @ p["W_1"] + p["b_1"][0]))
        expect(f"{name}: ffn = FFN(x)", d["ffn"], ffn(ffn_in))
        attn, (Q, K, V) = mha(p["ln1"] if not post else X)
        expect(f"{name}: Q = x · W_Q + b_Q", d["Q"], Q)
        expect(f"{name}: attention = concat of heads · W_O + b_O", d["attention"], attn)
        dk = X.shape[1] // h
        for i in range(h):
            cut = slice(i * dk, (i + 1) * dk)
            expect(f"{name}: weights_{i+1} = softmax(Q_{i+1} · K_{i+1}ᵀ / √d_k)", d[f"weights_{i+1}"],
                   softmax(p["Q"][:, cut] @ p["K"][:, cut].T / np.sqrt(dk)))

        # the whole block from X and the weights alone
        if post:
            r = layer_norm(X + mha(X)[0], g1, b1)
            out = layer_norm(r + ffn(r), g2, b2)
        else:
            r = X + mha(layer_norm(X, g1, b1))[0]
            out = r + ffn(layer_norm(r, g2, b2))
        expect(f"{name}: the whole block from X and the weights", d["output"], out)
        expect(f"{name}: output shape = X shape", d["output"].shape, X.shape)
