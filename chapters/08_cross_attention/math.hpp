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

#include <string>

#include "common/attention/attention.hpp"
#include "common/attention/permutation.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"

// What cross-attention reads: the two sequences' states and the three projections.
// Rows and columns: "english" and "french" tokens, the "encoder dims" and "decoder dims"
// of the states, the "query slots", "key slots" and "value slots" of the projections.
struct Translation {
    Matrix X_enc;  // (n × d_enc)
    Matrix X_dec;  // (m × d_dec)
    Matrix W_Q;    // (d_dec × d_k)
    Matrix W_K;    // (d_enc × d_k)
    Matrix W_V;    // (d_enc × d_v)

    MatrixList matrices() const {
        return {{"X_enc", X_enc, "the encoder's states", "english", "encoder dims"},
                {"X_dec", X_dec, "the decoder's states", "french", "decoder dims"},
                {"W_Q", W_Q, "decoder dims → query slots", "decoder dims", "query slots"},
                {"W_K", W_K, "encoder dims → key slots", "encoder dims", "key slots"},
                {"W_V", W_V, "encoder dims → value slots", "encoder dims", "value slots"}};
    }
};

// Two alignment lines that cross: decoder token a < b looks most at encoder token
// looks_at[a] > looks_at[b]. `found` is false when no two lines cross.
struct Crossing {
    bool found = false;
    std::size_t a = 0, b = 0;
};
Crossing first_crossing(const std::vector<std::size_t>& looks_at);

struct CrossAttention {
    Matrix Q, K, V;                     // (m × d_k), (n × d_k), (n × d_v)
    AttentionSteps steps;               // the matrix form (common/attention/attention)
    std::vector<std::size_t> looks_at;  // per decoder token: the encoder token of its largest weight
    Crossing crossing;                  // of looks_at
    Order order;                        // the encoder's tokens reversed
    AttentionSteps reversed;            // attention to the reversed encoder

    // Rows are decoder tokens ("french"), columns encoder tokens ("english", or
    // "english reversed") or the slots of the projections.
    MatrixList matrices() const {
        const std::string scaled = "Q · Kᵀ / √" + std::to_string(cols(Q));
        return {{"Q", Q, "X_dec · W_Q", "french", "query slots"},
                {"K", K, "X_enc · W_K", "english", "key slots"},
                {"V", V, "X_enc · W_V", "english", "value slots"},
                {"scores", steps.scores, "Q · Kᵀ", "french", "english", MatrixKind::scores},
                {"scaled_scores", steps.scaled_scores, scaled, "french", "english", MatrixKind::scores},
                {"weights", steps.weights, "softmax of each row", "french", "english", MatrixKind::attention_weights},
                {"output", steps.output, "weights · V", "french", "value slots"},
                {"weights_reversed", reversed.weights, "softmax(Q · K_reversedᵀ / √d_k)", "french",
                 "english reversed", MatrixKind::attention_weights},
                {"output_reversed", reversed.output, "weights_reversed · V_reversed", "french", "value slots"}};
    }
};
CrossAttention cross_attention(const Translation& t);
