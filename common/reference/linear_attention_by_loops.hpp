// Causal linear attention written out as loops in double, straight from the formula
// (Katharopoulos et al. 2020, "Transformers are RNNs"): the reference that chapter 19's
// parallel, recurrent and chunked forms are compared with.
//
//   out_i = Σ_{j≤i} (φq_i · φk_j) v_j  /  Σ_{j≤i} φq_i · φk_j
//
// The feature map φ is applied by the caller: phi_Q (n × d), phi_K (n × d), V (n × d_v), all
// entries of phi_Q and phi_K ≥ 0. A query whose normaliser Σ_j φq_i · φk_j is 0 (φ = relu can
// give it: every product 0) sees no key: its output row is 0, the convention of
// common/attention/softmax.hpp for a query that sees nothing.
//
// With normalise = false the division is left out: out_i = Σ_{j≤i} (φq_i · φk_j) v_j, the
// read-out of the state S_i = Σ_{j≤i} φk_j v_jᵀ that linear attention keeps.
#pragma once

#include "common/numbers/matrix.hpp"

Matrix linear_attention_by_loops(const Matrix& phi_Q, const Matrix& phi_K, const Matrix& V, bool normalise = true);
