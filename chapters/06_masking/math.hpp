// Chapter 06 · the mathematics: masking, what a token may not see.
//
// A hidden key's scaled score becomes −inf before the softmax; exp(−inf) = 0,
// so its weight is exactly 0 and the other weights of the row still sum to 1.
//
//   weights = softmax(Q · Kᵀ / √d_k + M),   M(i, j) = 0 where mask(i, j) = 1, −inf where it is 0
//   output_i = Σ_{j visible} softmax_j(q_i · k_j / √d_k) v_j   the same, one query at a time
//
//   causal mask   (n × n)  mask(i, j) = 1 when j ≤ i: a decoder may not look ahead
//   padding mask  (b × n)  1 for a real token, 0 for a pad of a batch
//
// Shapes: X (n × d_model); W_Q, W_K, W_V (d_model × d_k); Q, K, V (n × d_k);
// mask, scores, weights (n × n); output (n × d_k).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "common/attention/attention.hpp"
#include "common/attention/mask.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"

// The causal mask (n × n): mask(i, j) = 1 when j ≤ i, a lower triangle.
Matrix lower_triangle_mask(std::size_t n);
// The padding mask of a batch (b × n): row s has lengths[s] ones, then zeros.
Matrix padding_rows(const std::vector<std::size_t>& lengths, std::size_t n);
// Sentence s's padding as an attention mask (n × n): its pads are hidden as keys,
// from every query (pad queries too: they may look at the real tokens).
Matrix pad_key_mask(const Matrix& padding, std::size_t s);
// The softmax of each row of scores that hold −inf where a key is hidden: hidden
// keys get exactly 0; a row whose keys are all hidden gets zeros, not NaN. (n × m)
Matrix masked_softmax_rows(const Matrix& masked_scores);

// X (n × d) padded with zero rows to `length`, on the right or (left) on the left.
Matrix pad_rows(const Matrix& X, std::size_t length, bool left);
// The rows [first, first + count) of m.
Matrix row_block(const Matrix& m, std::size_t first, std::size_t count);
// The rows `which` of m, in that order.
Matrix pick_rows(const Matrix& m, const std::vector<std::size_t>& which);
// For each row, the weight its visible keys keep of a softmax over every key (float sum).
std::vector<float> visible_weight(const Matrix& weights, const Matrix& mask);
// How far row i's best hidden score lies above its best visible one.
double hidden_lead(const Matrix& scores, const Matrix& mask, std::size_t i);
// How much of row i's weight falls on the keys [0, count).
float weight_on_first(const Matrix& weights, std::size_t i, std::size_t count);

// The hand-made projections of data/projections/: rows are the embedding's
// dimensions, columns the query's, key's and value's slots.
struct Projections {
    Matrix W_Q, W_K;  // (d_model × d_k)
    Matrix W_V;       // (d_model × d_v)

    MatrixList matrices() const {
        return {{"W_Q", W_Q, "", "dimensions", "query slots"},
                {"W_K", W_K, "", "dimensions", "key slots"},
                {"W_V", W_V, "", "dimensions", "value slots"}};
    }
};

// Q, K, V of a sequence: X (n × d_model) times each projection (d_model × d_k).
struct QKV {
    Matrix Q, K, V;
};
QKV project(const Matrix& X, const Projections& W);

// Q, K, V of X, then softmax(Q · Kᵀ / √d_k with −inf where mask = 0) · V, every
// intermediate kept. X (n × d_model); mask (n × n). masked_attention (common/attention/mask)
// computes the same: the self-checks compare the two, and both with the reference
// loops of common/reference.
std::pair<QKV, MaskedAttentionSteps> masked_self_attention(const Matrix& X, const Projections& W, const Matrix& mask);

// The causal mask on one sentence, and the other way of masking.
struct Causal {
    QKV p;
    Matrix mask;                  // (n × n) lower_triangle_mask(n)
    MaskedAttentionSteps steps;   // masked_self_attention
    Matrix unmasked;              // (n × n) softmax over every key
    Matrix renormalised;          // (n × n) softmax, zero the hidden keys, divide by what is left
    std::vector<float> kept;      // per row: the weight the visible keys kept in `unmasked`
    // Rows whose kept weight is at least the smallest normal float (sound) or not
    // (broken: subnormal or 0, too few digits to divide by).
    std::vector<std::size_t> sound_rows, broken_rows;
    double broken_lead = 0.0;     // the first broken row: how far its best hidden score leads (hidden_lead)

    // Rows are queries, columns keys (both the sentence's tokens) or a value's slots.
    MatrixList matrices() const {
        return {{"Q", p.Q, "X · W_Q", "tokens", "query slots"},
                {"K", p.K, "X · W_K", "tokens", "key slots"},
                {"V", p.V, "X · W_V", "tokens", "value slots"},
                {"mask", mask, "1 where j ≤ i", "tokens", "tokens", MatrixKind::mask},
                {"scores", steps.scores, "Q · Kᵀ", "tokens", "tokens", MatrixKind::scores},
                {"scaled_scores", steps.scaled_scores, "Q · Kᵀ / √d_k", "tokens", "tokens", MatrixKind::scores},
                {"masked_scores", steps.masked_scores, "Q · Kᵀ / √d_k, −inf where mask = 0", "tokens", "tokens",
                 MatrixKind::scores},
                {"weights", steps.weights, "softmax(masked_scores)", "tokens", "tokens", MatrixKind::attention_weights},
                {"output", steps.output, "weights · V", "tokens", "value slots"}};
    }
};
Causal causal_attention(const Matrix& X, const Projections& W);

// A batch of two sentences: `short_X` padded on the right to the length of the other.
struct Padded {
    Matrix padding;                // (2 × length) padding_rows
    Matrix X;                      // (length × d_model) short_X and zero rows
    Matrix mask;                   // (length × length) pad_key_mask(padding, 1)
    QKV p;
    MaskedAttentionSteps batch;    // masked
    AttentionSteps unmasked;       // the same batch without the mask
    AttentionSteps alone;          // short_X alone, no pads
    std::vector<float> pad_share;  // per query of `unmasked`: the weight it gives the pads, 1 − weight_on_first

    // "sentences": the batch's two; "padded tokens": sentence 1 and its pads.
    MatrixList matrices() const {
        return {{"padding_mask", padding, "1 = real token, 0 = pad", "sentences", "", MatrixKind::mask},
                {"padded_X", X, "", "padded tokens", "dimensions"},
                {"padded_mask", mask, "", "padded tokens", "padded tokens", MatrixKind::mask},
                {"padded_scores", batch.masked_scores, "Q · Kᵀ / √d_k, −inf at the pad keys", "padded tokens",
                 "padded tokens", MatrixKind::scores},
                {"padded_weights", batch.weights, "softmax(padded_scores)", "padded tokens", "padded tokens",
                 MatrixKind::attention_weights},
                {"padded_output", batch.output, "padded_weights · V", "padded tokens", "value slots"}};
    }
};
Padded padded_batch(const Matrix& short_X, std::size_t length, const Projections& W);

// short_X padded on the left by `pads` rows, with the causal and padding masks combined.
struct LeftPadded {
    Matrix X;                           // (n × d_model), n = pads + short
    Matrix mask;                        // (n × n) causal · padding
    QKV p;
    MaskedAttentionSteps generation;    // masked
    MaskedAttentionSteps short_causal;  // short_X alone, causal

    // "left tokens": the pads, then the sentence.
    MatrixList matrices() const {
        return {{"left_mask", mask, "causal · padding", "left tokens", "left tokens", MatrixKind::mask},
                {"left_X", X, "", "left tokens", "dimensions"},
                {"left_scores", generation.masked_scores, "Q · Kᵀ / √d_k, −inf where left_mask = 0", "left tokens",
                 "left tokens", MatrixKind::scores},
                {"left_weights", generation.weights, "softmax(left_scores)", "left tokens", "left tokens",
                 MatrixKind::attention_weights},
                {"left_output", generation.output, "left_weights · V", "left tokens", "value slots"}};
    }
};
LeftPadded left_padded(const Matrix& short_X, std::size_t pads, const Projections& W);
