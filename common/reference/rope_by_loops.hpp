// Rotary position embeddings (RoPE, Su et al. 2021) written out in double, straight from the
// formula: the reference for chapter 14's float32 rotation.
//
//   θ_i = base^(−2i/d),  i = 0 … d/2 − 1
//   row t stands at position p = offset + t; its pair (2i, 2i+1) = (a, b) is multiplied by
//   the 2×2 rotation R(p·θ_i) = [[cos, −sin], [sin, cos]]:
//   (a, b) → (a cos p·θ_i − b sin p·θ_i,  a sin p·θ_i + b cos p·θ_i)
//
// Rᵀ(α) R(β) = R(β − α), so the score of a query turned to position m and a key turned to
// position n is Σ_i q_pair_i · R((n − m)·θ_i) k_pair_i: a function of n − m alone
// (rope_scores_by_distance, which turns nothing).
#pragma once

#include <cstddef>

#include "common/numbers/matrix.hpp"

// M (n × d, d even) → (n × d): row t turned to position offset + t, interleaved pairs.
Matrix rope_by_loops(const Matrix& M, std::size_t offset, double base);

// Q (n × d), K (m × d), unturned, d even → (n × m): entry (i, j) is the score of q_i turned to
// position i and k_j turned to position j, Σ_p (q·k)_p cos φ + (q × k)_p sin φ with
// φ = (j − i)·θ_p, where (q·k)_p = a_q a_k + b_q b_k and (q × k)_p = b_q a_k − a_q b_k.
Matrix rope_scores_by_distance(const Matrix& Q, const Matrix& K, double base);
