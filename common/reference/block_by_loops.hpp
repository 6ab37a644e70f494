// A transformer block written out as loops in double, straight from the formulas: the
// reference that chapter 12's self-checks compare its float32 sub-layers and block with.
//
//   linear       y = x · W + b                                (n × d_in) → (n × d_out)
//   attention    Q = x · W_Q + b_Q, K = x · W_K + b_K, V = x · W_V + b_V   (n × d_model)
//                head i = softmax(Q_i · K_iᵀ / √d_k) · V_i on its d_k = d_model / h columns
//                MHA(x) = [head_1, …, head_h] · W_O + b_O      (heads_by_loops, then W_O)
//   feed-forward FFN(x) = act(x · W_1 + b_1) · W_2 + b_2, act = max(0, ·) or GELU
//                (GPT-2's tanh form: 0.5 · z · (1 + tanh(√(2/π) · (z + 0.044715 · z³))))
//   pre-norm     r = X + MHA(LN1(X));  Y = r + FFN(LN2(r))
//   post-norm    r = LN1(X + MHA(X));  Y = LN2(r + FFN(r))
//
// Every sum runs in double and is rounded to float once, where the result is stored; the
// layer norms are layer_norm_by_loops, the heads heads_by_loops.
#pragma once

#include "common/block/transformer_block.hpp"
#include "common/numbers/matrix.hpp"
#include "common/reference/attention_by_loops.hpp"

// x · W + b. x (n × d_in), W (d_in × d_out), b (d_out) → (n × d_out)
Matrix linear_by_loops(const Matrix& x, const Matrix& W, const Vector& b);

// GELU's tanh form in double.
double gelu_by_formula(double z);

// FFN(x), one token at a time; the hidden units stay in double. x (n × d_model) → (n × d_model)
Matrix feed_forward_by_loops(const FeedForward& ffn, const Matrix& x);

struct MultiHeadByLoops {
    Matrix Q, K, V;       // (n × d_model) the projections, rounded to float once
    HeadsByLoops heads;   // h weights (n × n), the heads side by side (n × d_model), score_size
    Matrix output;        // (n × d_model) [head_1, …, head_h] · W_O + b_O
    // max |v| · the largest Σ_c |W_O(c, d)| over the columns d: the size of an output entry,
    // which float rounding of it is relative to.
    double value_size = 0.0;
};

// The attention sub-layer with biases on x (n × d_model), h heads (h divides d_model).
MultiHeadByLoops multi_head_by_loops(const Matrix& x, const AttentionParams& params, std::size_t h);

// One pass through the block in `placement`: its output (n × d_model).
Matrix block_by_loops(const Matrix& X, const BlockParams& params, NormPlacement placement);
