// How a head of a model mixes its tokens: one of four ways, the same in chapter 16's
// attention-only model (common/copy_model/) and chapter 22's GPT (common/gpt/). Each reads a
// head's q, k, v (n × d_h) of one sequence and gives Z_h (n × d_h); token_mixers.hpp has their
// forward and backward passes, one file each (mixer_softmax.cpp, mixer_linear.cpp,
// mixer_delta_rule.cpp), and the softmax's choice of keys (a window, sinks, top-k, a sink logit).
//
//   softmax      Z = A v,  A = softmax_causal(q kᵀ / √d_h)                       (n × n)
//   linear       Z = A v,  A[i, j] = φ(q_i)·φ(k_j) / Σ_{j'≤i} φ(q_i)·φ(k_j')  (j ≤ i, else 0)
//                φ(x) = elu(x) + 1 entrywise: x + 1 for x > 0, eˣ otherwise (always > 0)
//   delta        a state S (d_h × d_h, keys × values), S_{−1} = 0, for t = 0, 1, …:
//                S_t = S_{t−1} + β_t k̂_t (v_t − S_{t−1}ᵀ k̂_t)ᵀ,   z_t = S_tᵀ q̂_t
//                (S_{t−1}ᵀ k̂_t is what the state holds for the key k̂_t: a write with
//                β_t = 1 replaces it by v_t)
//   gated_delta  S_t = α_t S_{t−1} + β_t k̂_t (v_t − α_t S_{t−1}ᵀ k̂_t)ᵀ,   z_t = S_tᵀ q̂_t
//                (α_t < 1 forgets a share of everything before writing)
//   with q̂ = q / max(‖q‖, ε), k̂ likewise, row by row (ε = 1e-6, as torch's F.normalize:
//   a zero row stays 0 instead of 0/0), β_t = σ(x_t · w_β) and α_t = σ(x_t · w_α + b_α),
//   x_t the token's row of the layer's input, σ(s) = 1 / (1 + e⁻ˢ).
//
// The mixers' backward passes:
//   softmax  dA = dZ vᵀ, dv = Aᵀ dZ,  dS = A ⊙ (dA − rowsum(dA ⊙ A)) / √d_h  (S = q kᵀ),
//            dq = dS k, dk = dSᵀ q    (hidden keys: A = 0, so dS = 0)
//   linear   dA = dZ vᵀ, dv = Aᵀ dZ,  dS[i, j] = (dA[i, j] − rowsum(dA ⊙ A)_i) / Σ_{j'≤i} S[i, j']
//            (S = φ(q) φ(k)ᵀ), dφ(q) = dS φ(k), dφ(k) = dSᵀ φ(q), dq = dφ(q) ⊙ φ'(q)
//   delta and gated, back through time (t = n−1, …, 0) with D = ∂loss/∂S_t (d_h × d_h), 0 after
//   the last token, and S' = α_t S_{t−1} (α_t = 1 for delta), e_t = v_t − S'ᵀ k̂_t, w = Dᵀ k̂_t:
//     D += q̂_t dz_tᵀ,  dq̂_t = S_t dz_t                       (from z_t = S_tᵀ q̂_t)
//     dv_t = β_t w,  dβ_t = w · e_t,  dk̂_t = β_t (D e_t − S' w)
//     dS' = D − β_t k̂_t wᵀ,  dα_t = Σ dS' ⊙ S_{t−1},  D ← α_t dS'   (now ∂loss/∂S_{t−1})
//     dq = (dq̂ − q̂ (q̂ · dq̂)) / ‖q‖ (dq̂ / ε where ‖q‖ < ε), dk likewise
#pragma once

enum class Mixer { softmax, linear, delta, gated_delta };
