// Chapter 12 · the mathematics: a whole transformer block.
//
// Attention alone is not a transformer layer. The block wraps it with a residual
// connection around each sub-layer (add, do not replace), layer normalisation
// (each token rescaled on its own) and a position-wise feed-forward network:
//
//   LN(x)_j = γ_j · (x_j − μ) / √(σ² + ε) + β_j   μ, σ²: the mean and variance of the token's row
//   pre-norm  (GPT-2):      r = X + MHA(LN1(X));   Y = r + FFN(LN2(r))
//   post-norm (the paper):  r = LN1(X + MHA(X));   Y = LN2(r + FFN(r))
//   FFN(x) = max(0, x · W_1 + b_1) · W_2 + b_2
//
// Shapes: X and Y (n × d_model); Q, K, V (n × d_model) in h heads of
// d_k = d_model / h columns; each head's weights (n × n); hidden (n × d_ff),
// d_ff = 4 · d_model. The sub-layers (attention with biases, the FFN) and the
// parameters come from common/math/transformer_block; the normalisation and the
// residual wiring are written here.
#pragma once

#include <cstdint>

#include "common/math/matrix.hpp"
#include "common/math/transformer_block.hpp"

// x̂: each token (row) shifted to mean 0 and scaled by 1/√(σ² + ε). (n × d_model) → (n × d_model)
Matrix normalise_tokens(const Matrix& x);

// LN(x) = γ ⊙ x̂ + β, token by token; γ and β are d_model long. (n × d_model) → (n × d_model)
Matrix layer_norm_tokens(const Matrix& x, const LayerNormParams& params);

// One pass through the block in the given placement, every intermediate kept.
BlockSteps block_forward(const Matrix& X, const BlockParams& params, NormPlacement placement);

// Everything the lesson shows, computed once.
struct TransformerBlockLesson {
    BlockSteps s;        // the chosen placement: ln1, Q, K, V, weights, concat, attention, residual1, ln2, ffn, …
    Matrix ln1_input;    // (n × d_model) what LN1 reads: X (pre-norm) or residual1 (post-norm)
    Matrix ln2_input;    // (n × d_model) what LN2 reads: residual1 (pre-norm) or residual2 (post-norm)
    Matrix x_hat1;       // (n × d_model) normalise_tokens(ln1_input), before γ1 and β1
    Matrix x_hat2;       // (n × d_model) normalise_tokens(ln2_input), before γ2 and β2
    Matrix other_output; // (n × d_model) the other placement's output, with the same weights
    std::uint64_t drawn = 0;                    // the floats the parameters hold
    BlockParameterCount toy, base, gpt2;        // per block, from the formulas
};

// The block on X in `placement`, the other placement, and the parameter counts of this
// block (d_ff hidden units), of Transformer Base (attention without biases) and GPT-2 small.
TransformerBlockLesson transformer_block_lesson(const Matrix& X, const BlockParams& params, NormPlacement placement);
