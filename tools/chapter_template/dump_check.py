import numpy as np


def check(dump, expect, softmax):
    d = dump("@program@")
    X = d["X"]
    scaled = X @ X.T / np.sqrt(X.shape[1])
    expect("@program@: scaled_scores == X @ X.T / sqrt(d_model)", d["scaled_scores"], scaled)
    expect("@program@: weights == softmax(scaled_scores)", d["weights"], softmax(scaled))
    expect("@program@: output == weights @ X", d["output"], softmax(scaled) @ X)
