import numpy as np


def check(dump, expect, softmax):
    d = dump("ch24_which_attention")
    by_position, measures = d["loss_by_position"], d["measures"]
    # the held-out column is the mean over the positions, for every variant
    expect("ch24_which_attention: measures[:, 2] == the mean of each row of loss_by_position",
           measures[:, 2], by_position.astype(np.float64).mean(axis=1))
