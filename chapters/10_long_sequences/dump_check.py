import numpy as np


def check(dump, expect, softmax):
    # The small input of step 6: n = 32, a window of 8 keys, pairs (8, 1) and (32, 4).
    d = dump("ch10_long_sequences", "--max-n", "1024", "--budget-s", "0.5")
    Q, K, V = d["Q"].astype(np.float64), d["K"].astype(np.float64), d["V"].astype(np.float64)
    n, width = Q.shape
    s = Q @ K.T / np.sqrt(width)
    full = softmax(s) @ V
    expect("ch10: output_full == softmax(Q @ K.T / sqrt(d)) @ V", d["output_full"], full)
    expect("ch10: output_streaming == output_full", d["output_streaming"], full)

    w = 8
    window = np.zeros_like(full)
    for i in range(n):
        begin = min(max(i - w // 2, 0), n - w)
        window[i] = softmax(s[i:i + 1, begin:begin + w]) @ V[begin:begin + w]
    expect("ch10: output_window == each query's window of 8 keys, shifted at the ends", d["output_window"], window)

    # LongNet: per pair, segments of w tokens, every r-th one; the pairs mixed
    # by their softmax denominators = one softmax over all (pair, key) entries.
    num = np.zeros_like(full)
    den = np.zeros(n)
    for seg, r in [(8, 1), (32, 4)]:
        for start in range(0, n, seg):
            idx = np.arange(start, min(start + seg, n), r)
            e = np.exp(s[np.ix_(idx, idx)])
            num[idx] += e @ V[idx]
            den[idx] += e.sum(axis=1)
    expect("ch10: output_dilated == LongNet's mixture", d["output_dilated"], num / den[:, None])
