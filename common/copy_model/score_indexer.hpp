// The indexer of a top-k head (attention_only_model.hpp's top_k), built from the head itself.
//
// Head h scores key j for query i by q_i · k_j = x_i W_Q W_Kᵀ x_jᵀ = x_i B x_jᵀ, with the
// bilinear form B = W_Q W_Kᵀ (d × d, rank ≤ d_h). An indexer of width r scores
// (x_i W_IQ) · (x_j W_IK) = x_i W_IQ W_IKᵀ x_jᵀ: a form of rank ≤ r. The closest one to B
// (Eckart–Young: in the Frobenius and the spectral norm) comes from the SVD B = U Σ Vᵀ:
//
//   B_r = U_r Σ_r V_rᵀ,   W_IQ = U_r Σ_r^{1/2},  W_IK = V_r Σ_r^{1/2}     (d × r each)
//
// U_r, V_r the first r columns, Σ_r the r largest singular values. With r ≥ rank B (r = d_h
// is enough), B_r = B: the indexer's scores are the head's (before its 1/√d_h, which ranks
// nothing differently), so it keeps exactly the keys the head scores highest.
// For a group's head W_K is the group's; with a latent, W_K = W_DKV W_UK^h.
#pragma once

#include <cstddef>

#include "common/copy_model/attention_only_model.hpp"

// The keys' projection of head k = l·heads + h, from X_l: W_K (d × d_h).
template <class T>
Mat<T> key_projection(const AttentionOnlyModel<T>& m, std::size_t k);

// W_IQ, W_IK of every head (d × r each) by the truncated SVD above; r in [1, d].
template <class T>
void set_indexer_from_heads(AttentionOnlyModel<T>& m, std::size_t r);
