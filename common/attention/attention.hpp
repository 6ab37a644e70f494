// Scaled dot-product attention (Vaswani et al. 2017, eq. 1):
//
//   Attention(Q, K, V) = softmax(Q · Kᵀ / √d_k) · V
//
//   Q (n × d_k)  queries, one per token that asks
//   K (m × d_k)  keys, one per token that can be found
//   V (m × d_v)  values, what each found token hands back
#pragma once

#include "common/numbers/matrix.hpp"

// Every intermediate of one attention pass, so a chapter can print each.
struct AttentionSteps {
    Matrix scores;         // (n × m)  Q · Kᵀ
    Matrix scaled_scores;  // (n × m)  scores / √d_k
    Matrix weights;        // (n × m)  softmax of each row; rows sum to 1
    Matrix output;         // (n × d_v) weights · V
};

// Q · Kᵀ: how well each query matches each key. (n × d_k), (m × d_k) → (n × m)
Matrix dot_scores(const Matrix& Q, const Matrix& K);

AttentionSteps scaled_dot_product_attention(const Matrix& Q, const Matrix& K, const Matrix& V);
