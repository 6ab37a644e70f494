import numpy as np


def check(dump, expect, softmax):
    d = dump("ch02_softmax")
    expect("ch02: scores == X @ X.T", d["scores"], d["X"] @ d["X"].T)
    expect("ch02: weights == softmax(scores)", d["weights"], softmax(d["scores"]))
    expect("ch02: stable_weights_x100 == softmax(100 * scores)", d["stable_weights_x100"],
           softmax(100.0 * d["scores"]))
    s = d["example_scores"]
    expect("ch02: divided_by_sum == s / s.sum(row)", d["divided_by_sum"], s / s.sum(axis=1, keepdims=True))
    expect("ch02: example_weights == softmax(example_scores)", d["example_weights"], softmax(s))
    t = dump("ch02_softmax", "--temperature", "0.25")
    expect("ch02: --temperature 0.25: weights == softmax(scores / 0.25)", t["weights"], softmax(t["scores"] / 0.25))
    # the naive formula, in float32 as the program computes it: inf / inf = nan where it overflows
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp((100.0 * d["scores"]).astype(np.float32))
        naive = e / e.sum(axis=1, keepdims=True)
    expect("ch02: naive_weights_x100 has nan exactly where float32 exp overflows",
           np.isnan(d["naive_weights_x100"]).astype(float), np.isnan(naive).astype(float))
    finite = np.isfinite(naive)
    expect("ch02: elsewhere naive_weights_x100 == softmax(100 * scores)", d["naive_weights_x100"][finite],
           softmax(100.0 * d["scores"])[finite])
    expect("ch02: naive_weights == softmax(scores)", d["naive_weights"], softmax(d["scores"]))
    expect("ch02: stable_weights == softmax(scores)", d["stable_weights"], softmax(d["scores"]))
    expect("ch02: scores_x100 == 100 * scores", d["scores_x100"], 100.0 * d["scores"], tol=1e-3)
    expect("ch02: scores_over_T == scores / T (T = 1)", d["scores_over_T"], d["scores"])
    expect("ch02: --temperature 0.25: scores_over_T == scores / 0.25", t["scores_over_T"], t["scores"] / 0.25)
