import numpy as np


def check(dump, expect, softmax):
    d = dump("ch08_cross_attention")
    Q = d["X_dec"] @ d["W_Q"]  # queries from the decoder
    K = d["X_enc"] @ d["W_K"]  # keys and values from the encoder
    V = d["X_enc"] @ d["W_V"]
    expect("ch08: Q == X_dec @ W_Q", d["Q"], Q)
    expect("ch08: K == X_enc @ W_K", d["K"], K)
    expect("ch08: V == X_enc @ W_V", d["V"], V)
    expect("ch08: scores == Q @ K.T (m x n)", d["scores"], Q @ K.T)
    expect("ch08: scaled_scores == scores / sqrt(d_k)", d["scaled_scores"], d["scores"] / np.sqrt(K.shape[1]))
    expect("ch08: weights == softmax(scaled_scores)", d["weights"], softmax(Q @ K.T / np.sqrt(K.shape[1])))
    expect("ch08: output == weights @ V (one row per decoder token)", d["output"], d["weights"] @ V)
    expect("ch08: output has m rows", d["output"].shape[0], d["X_dec"].shape[0])
    # The encoder reversed: the columns of weights reversed, the output unchanged.
    Xr = d["X_enc"][::-1]
    wr = softmax(Q @ (Xr @ d["W_K"]).T / np.sqrt(K.shape[1]))
    expect("ch08: weights_reversed == weights[:, ::-1]", d["weights_reversed"], d["weights"][:, ::-1])
    expect("ch08: weights_reversed recomputed from X_enc reversed", d["weights_reversed"], wr)
    expect("ch08: output_reversed == output", d["output_reversed"], wr @ (Xr @ d["W_V"]))
