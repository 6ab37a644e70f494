import numpy as np

PHI = {"elu1": lambda x: np.where(x > 0, x + 1, np.exp(np.minimum(x, 0))), "relu": lambda x: np.maximum(x, 0),
       "exp": np.exp}


def linear_attention(pq, pk, V):
    """Causal linear attention, the parallel form in numpy; a zero normaliser gives 0."""
    A = np.tril(pq @ pk.T)
    sums = A.sum(axis=1, keepdims=True)
    return np.divide(A @ V, sums, out=np.zeros((A.shape[0], V.shape[1])), where=sums > 0)


def delta_rule(Q, K, V, beta, alpha, S=None):
    """S_t = α S + β k (v − α Sᵀk)ᵀ, o_t = S_tᵀ q_t; returns the outputs and the last state."""
    S = np.zeros((K.shape[1], V.shape[1])) if S is None else S
    out = []
    for q, k, v, b, a in zip(Q, K, V, beta, alpha):
        S = a * S + b * np.outer(k, v - a * S.T @ k)
        out.append(S.T @ q)
    return np.array(out), S


def check(dump, expect, softmax):
    for args, phi in ((["--steps", "10"], "elu1"), (["--feature-map", "relu", "--chunk", "3", "--beta", "0.7", "--alpha", "0.5",
                                      "--steps", "1"], "relu"),
                      (["--feature-map", "exp", "--d-model", "4", "--seed", "2", "--steps", "1"], "exp")):
        d = dump("ch19_linear_attention", *args)
        tag = f"ch19 {' '.join(args) or '(default)'}"
        X = d["X"]
        Q, K, V = X @ d["W_Q"], X @ d["W_K"], X @ d["W_V"]
        # exp: exp(x − c), c a query row's largest entry, or the largest of all of K (it cancels)
        c_Q, c_K = (Q.max(axis=1, keepdims=True), K.max()) if phi == "exp" else (0, 0)
        expect(f"{tag}: phi_Q, phi_K == φ(X W_Q), φ(X W_K)", np.concatenate([d["phi_Q"], d["phi_K"]]),
               np.concatenate([PHI[phi](Q - c_Q), PHI[phi](K - c_K)]))
        out = linear_attention(d["phi_Q"], d["phi_K"], d["V"])
        for form in ("parallel", "recurrent", "chunked"):
            expect(f"{tag}: output_{form} == causal linear attention", d[f"output_{form}"], out)
        unit = lambda M: M / np.linalg.norm(M, axis=1, keepdims=True)
        expect(f"{tag}: delta_Q, delta_K == unit rows of X W_Q, X W_K",
               np.concatenate([d["delta_Q"], d["delta_K"]]), np.concatenate([unit(Q), unit(K)]))
        beta = d["beta"][:, 0]
        if "--beta" not in args:
            expect(f"{tag}: beta == σ(X w_β)", beta, 1 / (1 + np.exp(-(X @ d["w_beta"])[:, 0])))
        ones = np.ones(len(beta))
        o, S = delta_rule(d["delta_Q"], d["delta_K"], d["delta_V"], beta, ones)
        expect(f"{tag}: output_delta, state_final == the delta rule", np.concatenate([d["output_delta"],
                                                                                      d["state_final"]]),
               np.concatenate([o, S]))
        o, S = delta_rule(d["delta_Q"], d["delta_K"], d["delta_V"], beta, d["alpha"][:, 0])
        expect(f"{tag}: output_gated, state_gated == the gated delta rule",
               np.concatenate([d["output_gated"], d["state_gated"]]), np.concatenate([o, S]))
        values, errors, sweeps = d["memory_values"], [], d["memory_sweep_errors"].shape[0]
        for column, keys in enumerate([d["memory_keys_orthogonal"]] * 2 + [d["memory_keys_correlated"]] * 2):
            m = len(keys)
            if column % 2 == 0:
                S = keys.T @ values  # linear attention, one sweep
            else:
                _, S = delta_rule(keys, keys, values, np.ones(m), np.ones(m))
            errors.append(np.linalg.norm(keys @ S - values, axis=1))
            if column == 2:
                expect(f"{tag}: memory_state_linear == Σ k vᵀ", d["memory_state_linear"], S)
            if column == 3:
                expect(f"{tag}: memory_state_delta == one sweep of the delta rule", d["memory_state_delta"], S)
                _, S = delta_rule(np.tile(keys, (sweeps, 1)), np.tile(keys, (sweeps, 1)),
                                  np.tile(values, (sweeps, 1)), np.ones(m * sweeps), np.ones(m * sweeps))
                expect(f"{tag}: memory_state_delta_swept == {sweeps} sweeps", d["memory_state_delta_swept"], S)
        expect(f"{tag}: memory_pair_errors == |Sᵀk_i − v_i|", d["memory_pair_errors"], np.array(errors).T)
        acc = d["accuracy"]
        expect(f"{tag}: accuracy is a (4 × 2) of shares", float(acc.shape == (4, 2) and (0 <= acc).all()
                                                                 and (acc <= 1).all()), 1.0, tol=0)
        layers, heads, d_h = 2, 2, 16  # chapter 16's model
        per_n = lambda n: [2 * d_h, (d_h * d_h + d_h) / n, d_h * d_h / n, d_h * d_h / n]
        bytes_per_token = 4 * layers * heads * np.array([per_n(32), per_n(131072)]).T
        expect(f"{tag}: memory_bytes == 4 bytes × layers × heads × (2·d_h; (d_h² + d_h)/n; d_h²/n)",
               d["memory_bytes"], bytes_per_token)
