// Chapter 08 · the mathematics: cross-attention, one sequence asks, another answers.
//
// Queries come from the decoder's states, keys and values from the encoder's;
// the formula is the one of self-attention:
//
//   Q = X_dec · W_Q,  K = X_enc · W_K,  V = X_enc · W_V
//   output = softmax(Q · Kᵀ / √d_k) · V
//   output_i = Σ_j softmax_j(q_i · k_j / √d_k) v_j     one decoder token at a time
//
// Shapes (m decoder tokens ask, n encoder tokens answer; the two sequences need
// not have the same length or the same width):
//   X_dec (m × d_dec), W_Q (d_dec × d_k), Q (m × d_k)
//   X_enc (n × d_enc), W_K (d_enc × d_k), K (n × d_k), W_V (d_enc × d_v), V (n × d_v)
//   scores, scaled_scores, weights (m × n): one row per decoder token, one column per encoder token
//   output (m × d_v): one row per decoder token
#pragma once

#include <cstddef>
#include <vector>

#include "common/math/attention.hpp"
#include "common/math/matrix.hpp"
#include "common/math/permutation.hpp"

// The loop form, summed in double: the independent check of the matrix form.
struct LoopForm {
    Matrix weights;  // (m × n)
    Matrix output;   // (m × d_v)
};
LoopForm attention_by_loops(const Matrix& Q, const Matrix& K, const Matrix& V);

// Two alignment lines that cross: decoder token a < b looks most at encoder token
// looks_at[a] > looks_at[b]. `found` is false when no two lines cross.
struct Crossing {
    bool found = false;
    std::size_t a = 0, b = 0;
};
Crossing first_crossing(const std::vector<std::size_t>& looks_at);

struct CrossAttention {
    Matrix Q, K, V;                     // (m × d_k), (n × d_k), (n × d_v)
    AttentionSteps steps;               // the matrix form (common/math/attention)
    LoopForm loops;                     // the loop form
    std::vector<std::size_t> looks_at;  // per decoder token: the encoder token of its largest weight
    Crossing crossing;                  // of looks_at
    Order order;                        // the encoder's tokens reversed
    AttentionSteps reversed;            // attention to the reversed encoder
};
CrossAttention cross_attention(const Matrix& X_dec, const Matrix& X_enc, const Matrix& W_Q, const Matrix& W_K,
                               const Matrix& W_V);
