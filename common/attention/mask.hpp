// Masks: which keys a query may see.
//
//   mask(i, j) = 1   query i may look at key j
//   mask(i, j) = 0   key j is hidden from query i
//
// A mask is applied to the scaled scores before the softmax: a hidden key's
// score becomes −inf, so exp(−inf) = 0 gives it a weight of exactly 0, and the
// other weights of the row still sum to 1.
//
//   causal   (n × n)  a token may not look ahead: 1 on and below the diagonal
//
// (The padding mask of a batch is chapter 06's to build: its math.cpp, an exercise.)
//
// Masks combine by multiplying them entry by entry: a key is visible only if
// every mask lets it through.
#pragma once


#include "common/numbers/matrix.hpp"

// (n × n): mask(i, j) = 1 when j ≤ i.
Matrix causal_mask(std::size_t n);

// scores (n × m), mask (n × m) → scores with −inf where mask is 0.
Matrix apply_mask(const Matrix& scores, const Matrix& mask);

// The way many learners first meet masking: softmax over every key, set the
// hidden weights to 0, then divide each row by what is left. Equal to the
// softmax of the −inf-masked scores. A row with nothing left becomes zeros.
Matrix softmax_then_renormalise(const Matrix& scores, const Matrix& mask);

// Every intermediate of one masked attention pass.
struct MaskedAttentionSteps {
    Matrix scores;         // (n × m)  Q · Kᵀ
    Matrix scaled_scores;  // (n × m)  scores / √d_k
    Matrix masked_scores;  // (n × m)  scaled_scores with −inf where the mask is 0
    Matrix weights;        // (n × m)  softmax of each row: hidden keys get exactly 0
    Matrix output;         // (n × d_v) weights · V
};

// softmax(Q · Kᵀ / √d_k + mask as 0 / −inf) · V. A query whose keys are all
// hidden gets zero weights and a zero output row, never NaN.
MaskedAttentionSteps masked_attention(const Matrix& Q, const Matrix& K, const Matrix& V, const Matrix& mask);
