import numpy as np


def check(dump, expect, softmax):
    # The default run (4 ranks, n = 16, d = 8), then a causal one with n = 18: 18 does not
    # divide by 4, so the ranks hold blocks of 5, 5, 4 and 4 rows.
    for args in [(), ("--causal", "--n", "18")]:
        d = dump("ch17_ring_attention", *args)
        Q, K, V = d["Q"].astype(np.float64), d["K"].astype(np.float64), d["V"].astype(np.float64)
        n, width = Q.shape
        s = Q @ K.T / np.sqrt(width)
        causal = "--causal" in args
        if causal:
            s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
        full = softmax(s) @ V
        what = "causal, n = 18" if causal else "default"
        expect(f"ch17 ({what}): output (contiguous ring) == softmax(Q @ K.T / sqrt(d)) @ V", d["output"], full)
        expect(f"ch17 ({what}): output_striped (striped ring) == the same", d["output_striped"], full)
