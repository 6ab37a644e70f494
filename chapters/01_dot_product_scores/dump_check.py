def check(dump, expect, softmax):
    d = dump("ch01_dot_product_scores")
    expect("ch01: scores == X @ X.T", d["scores"], d["X"] @ d["X"].T)
    expect("ch01: scores_by_loops == X @ X.T", d["scores_by_loops"], d["X"] @ d["X"].T)

    # --text: X's rows are the trained model's embeddings, the rows of chapter 22's wte for the
    # tokens chapter 22 reads the same sentence as.
    sentence = "Call me Ishmael."
    t = dump("ch01_dot_product_scores", "--text", sentence)
    m = dump("ch22_small_gpt", "--text", sentence, "--step", "1")
    ids = m["token_ids"].ravel().astype(int)
    expect("ch01 --text: X == chapter 22's wte[token_ids]", t["X"], m["transformer.wte.weight"][ids], tol=0)
    expect("ch01 --text: scores == X @ X.T", t["scores"], t["X"] @ t["X"].T)
