def check(dump, expect, softmax):
    d = dump("ch01_dot_product_scores")
    expect("ch01: scores == X @ X.T", d["scores"], d["X"] @ d["X"].T)
    expect("ch01: scores_by_loops == X @ X.T", d["scores_by_loops"], d["X"] @ d["X"].T)
