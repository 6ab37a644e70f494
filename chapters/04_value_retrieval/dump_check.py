import numpy as np


def check(dump, expect, softmax):
    for temperature in ("1", "0.1"):
        d = dump("ch04_value_retrieval", "--temperature", temperature)
        T = float(temperature)
        keys, values, queries = d["phonebook_keys"], d["phonebook_values"], d["phonebook_queries"]
        scores = queries @ keys.T
        expect(f"ch04 T={temperature}: phonebook_scores == queries @ keys.T", d["phonebook_scores"], scores)
        hard = np.zeros_like(scores)
        hard[np.arange(len(scores)), scores.argmax(axis=1)] = 1  # argmax: the first best on a tie
        expect(f"ch04 T={temperature}: phonebook_hard_weights == one-hot argmax", d["phonebook_hard_weights"], hard)
        expect(f"ch04 T={temperature}: phonebook_hard == values[argmax]", d["phonebook_hard"],
               values[scores.argmax(axis=1)])
        w = softmax(scores / T)
        expect(f"ch04 T={temperature}: phonebook_weights == softmax(scores / T)", d["phonebook_weights"], w)
        expect(f"ch04 T={temperature}: phonebook_output == weights @ values", d["phonebook_output"], w @ values,
               tol=1e-2)  # values are in the thousands: float32 rounding is about 1e-4 of them
        X = d["X"]
        sw = softmax(X @ X.T / np.sqrt(X.shape[1]) / T)
        expect(f"ch04 T={temperature}: weights == softmax(X @ X.T / sqrt(d_model) / T)", d["weights"], sw)
        expect(f"ch04 T={temperature}: output == weights @ X", d["output"], sw @ X)
