import numpy as np


def check(dump, expect, softmax):
    d = dump("ch05_projections")
    X, W_Q, W_K, W_V = d["X"], d["W_Q"], d["W_K"], d["W_V"]
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    expect("ch05: Q == X @ W_Q", d["Q"], Q)
    expect("ch05: K == X @ W_K", d["K"], K)
    expect("ch05: V == X @ W_V", d["V"], V)
    scores = Q @ K.T
    expect("ch05: scores == Q @ K.T", d["scores"], scores)
    expect("ch05: scaled_scores == scores / sqrt(d_k)", d["scaled_scores"], scores / np.sqrt(K.shape[1]))
    w = softmax(scores / np.sqrt(K.shape[1]))
    expect("ch05: weights == softmax(scaled_scores)", d["weights"], w)
    expect("ch05: output == weights @ V", d["output"], w @ V)
    expect("ch05: W_QK == W_Q @ W_K.T", d["W_QK"], W_Q @ W_K.T)
    expect("ch05: scores == X @ W_QK @ X.T", d["scores"], X @ (W_Q @ W_K.T) @ X.T)
    expect("ch05: loops_scores == Q @ K.T", d["loops_scores"], scores)
    expect("ch05: loops_scaled_scores == scores / sqrt(d_k)", d["loops_scaled_scores"], scores / np.sqrt(K.shape[1]))
    expect("ch05: loops_weights == softmax(scaled_scores)", d["loops_weights"], w)
    expect("ch05: loops_output == weights @ V", d["loops_output"], w @ V)
    expect("ch05: last_query_terms[j] == weights[-1, j] * V[j]", d["last_query_terms"], w[-1][:, None] * V)

    LX = d["law_X"]
    expect("ch05: law_weights_raw == softmax(law_X @ law_X.T / sqrt(d_model))", d["law_weights_raw"],
           softmax(LX @ LX.T / np.sqrt(LX.shape[1])))
    expect("ch05: law_scores_raw == law_X @ law_X.T", d["law_scores_raw"], LX @ LX.T)
    LQ, LK, LV = LX @ W_Q, LX @ W_K, LX @ W_V
    expect("ch05: law_scores == law_Q @ law_K.T", d["law_scores"], LQ @ LK.T)
    expect("ch05: law_scaled_scores == law_scores / sqrt(d_k)", d["law_scaled_scores"], LQ @ LK.T / np.sqrt(LK.shape[1]))
    expect("ch05: law_Q, law_K == law_X @ W_Q, law_X @ W_K", np.stack([d["law_Q"], d["law_K"]]), np.stack([LQ, LK]))
    expect("ch05: law_V == law_X @ W_V", d["law_V"], LV)
    lw = softmax(LQ @ LK.T / np.sqrt(LK.shape[1]))
    expect("ch05: law_weights == softmax(law_Q @ law_K.T / sqrt(d_k))", d["law_weights"], lw)
    expect("ch05: law_output == law_weights @ law_V", d["law_output"], lw @ LV)
    its, law = 7, 1  # "the law will never be perfect but its …"
    expect("ch05: 'its' attends most to 'law' after projection", lw[its].argmax(), law)

    # --text --layer 1: X is ln_1 of the trained model's embeddings (layer 1's γ and β); W_Q, W_K,
    # W_V are the transposed thirds of its c_attn (PyTorch's (out × in)), biases left out.
    sentence, layer = "Call me Ishmael.", 1
    t = dump("ch05_projections", "--text", sentence, "--layer", str(layer))
    m = dump("ch22_small_gpt", "--text", sentence, "--step", "1")
    p = f"transformer.h.{layer}."
    x = m["transformer.wte.weight"][m["token_ids"].ravel().astype(int)]
    mean, var = x.mean(1, keepdims=True), x.var(1, keepdims=True)
    ln_1 = (x - mean) / np.sqrt(var + 1e-5) * m[p + "ln_1.weight"] + m[p + "ln_1.bias"]
    expect(f"ch05 --text --layer {layer}: X == ln_1(wte[token_ids])", t["X"], ln_1)
    c_attn, d = m[p + "attn.c_attn.weight"], x.shape[1]
    for part, name in enumerate(["W_Q", "W_K", "W_V"]):
        expect(f"ch05 --text --layer {layer}: {name} == c_attn[{part * d}:{(part + 1) * d}].T", t[name],
               c_attn[part * d:(part + 1) * d].T, tol=0)
    Q, K = t["X"] @ t["W_Q"], t["X"] @ t["W_K"]
    expect(f"ch05 --text --layer {layer}: weights == softmax(Q @ K.T / sqrt(d_k))", t["weights"],
           softmax(Q @ K.T / np.sqrt(d)))
