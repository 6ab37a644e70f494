import numpy as np


def check(dump, expect, softmax):
    d = dump("ch21_tokens")
    merges = d["merges"]
    # The merges are whole numbers: ids below the new symbol's id, counts that never grow.
    expect("ch21_tokens: merges hold whole numbers", merges, np.round(merges))
    first_id = 81 + np.arange(merges.shape[0])
    expect("ch21_tokens: a merge joins symbols made before it",
           (merges[:, :2] < first_id[:, None]).all(axis=1).astype(float), np.ones(merges.shape[0]))
    expect("ch21_tokens: merge counts never grow", (np.diff(merges[:, 2]) <= 0).astype(float), np.ones(merges.shape[0] - 1))
    recounted = d["recounted_merges"]
    expect("ch21_tokens: recounted_merges == the first merges", recounted, merges[: recounted.shape[0]])
    expect("ch21_tokens: text_ids == text_ids_by_merges", d["text_ids"], d["text_ids_by_merges"])
    ids = d["text_ids"].astype(int)
    expect("ch21_tokens: text ids inside the vocabulary", ((ids >= 0) & (ids < 81 + merges.shape[0])).astype(float),
           np.ones(ids.shape))
