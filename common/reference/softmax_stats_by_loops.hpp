// The two numbers an online softmax carries for each query, written out as loops in double:
// the largest scaled score and the softmax's denominator over the keys the query sees,
//
//   m_i = max_j s_ij,   ℓ_i = Σ_j exp(s_ij − m_i),   s_ij = q_i · k_j / √d_k (+ the mask's term)
//
// so that softmax(s_i)_j = exp(s_ij − m_i) / ℓ_i. Attention that streams the keys block by
// block and merges partial results (chapter 10's online softmax, chapter 17's ring) must end
// with these. Which keys a query sees is attention_by_loops' KeysSeen. A query that sees no
// key has m = −∞ and ℓ = 0: where every online softmax starts.
#pragma once

#include <vector>

#include "common/numbers/matrix.hpp"
#include "common/reference/attention_by_loops.hpp"

struct SoftmaxStatsByLoops {
    std::vector<double> m;  // (n) the largest score each query sees
    std::vector<double> l;  // (n) Σ_j exp(s_ij − m_i) over the keys it sees
};

// Q (n × d_k), K (m × d_k).
SoftmaxStatsByLoops softmax_stats_by_loops(const Matrix& Q, const Matrix& K,
                                           const KeysSeen& seen = KeysSeen::all_keys());
