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
// parameters come from common/block/transformer_block; the normalisation and the
// residual wiring are written here.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/block/transformer_block.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"

// x̂: each token (row) shifted to mean 0 and scaled by 1/√(σ² + ε). (n × d_model) → (n × d_model)
Matrix normalise_tokens(const Matrix& x);

// LN(x) = γ ⊙ x̂ + β, token by token; γ and β are d_model long. (n × d_model) → (n × d_model)
Matrix layer_norm_tokens(const Matrix& x, const LayerNormParams& params);

// One pass through the block in the given placement, every intermediate kept.
BlockSteps block_forward(const Matrix& X, const BlockParams& params, NormPlacement placement);

// Each row's mean and (biased) variance, in double: what a layer norm removes.
struct RowMoments {
    std::vector<double> mean, variance;  // n each
    double spread(std::size_t i) const { return std::sqrt(variance[i]); }  // σ of row i
};
RowMoments row_moments(const Matrix& x);

// GPT-2 small beyond its 12 blocks: token and position embeddings, the final LayerNorm.
struct Gpt2Total {
    std::uint64_t blocks, tokens = 50257ull * 768, positions = 1024ull * 768, final_ln = 2 * 768;
    std::uint64_t total() const { return blocks + tokens + positions + final_ln; }
};

// The block's parameters in groups, as random_block_params draws them: W_Q, W_K, W_V,
// W_O, the attention biases, γ1 and γ2, β1 and β2, W_1, b_1, W_2, b_2.
struct ParameterGroup {
    std::string name;
    std::size_t rows, cols;  // rows = 1: a vector (or several side by side)
    std::string drawn_from;  // the distribution, e.g. "N(0, 0.1²)"
};
std::vector<ParameterGroup> parameter_groups(std::size_t d_model, std::size_t d_ff, Init init);

// One matrix of the pass: "weights_i", "softmax(Q_i · K_iᵀ / √d_k)", "(n × n)", and its
// rows and columns here.
struct ShapeRow {
    std::string matrix, formula, shape;
    std::size_t rows, cols;
};

// The FFN's non-linearity applied to the text z: "max(0, z)" or "GELU(z)".
std::string activated(Activation activation, const std::string& z);

// Everything the lesson shows, computed once.
struct BlockPass {
    BlockParams params;  // the block's parameters (a copy, listed with the results)
    bool pre = true;     // pre-norm (else post-norm)
    BlockSteps s;        // the chosen placement: ln1, Q, K, V, weights, concat, attention, residual1, ln2, ffn, …
    std::vector<Matrix> head_weights;  // h of (n × n) head i's weights, cut from s.weights
    Matrix ln1_input;    // (n × d_model) what LN1 reads: X (pre-norm) or residual1 (post-norm)
    Matrix ln2_input;    // (n × d_model) what LN2 reads: residual1 (pre-norm) or residual2 (post-norm)
    Matrix x_hat1;       // (n × d_model) normalise_tokens(ln1_input), before γ1 and β1
    Matrix x_hat2;       // (n × d_model) normalise_tokens(ln2_input), before γ2 and β2
    RowMoments ln1_in, ln1_hat, ln2_in, ln2_hat;  // the moments of ln1_input, x_hat1, ln2_input, x_hat2
    Matrix other_output; // (n × d_model) the other placement's output, with the same weights
    RowMoments of_X, of_pre, of_post;  // the moments of X and of the pre-norm and post-norm outputs
    std::size_t hidden_zeros = 0;      // the hidden values max(0, ·) set to exactly 0
    Matrix b_Q, b_K, b_V, b_O, b_1, b_2, gamma1, beta1, gamma2, beta2;  // (1 × width) the vectors as rows
    std::uint64_t drawn = 0;                    // the floats the parameters hold
    BlockParameterCount toy, base, gpt2;        // per block, from the formulas
    Gpt2Total gpt2_model{0};                    // GPT-2 small: 12 blocks and the rest

    // Every matrix of the pass: its formula, its shape in symbols and here.
    std::vector<ShapeRow> shapes() const;
    // In the order the lesson shows them (its placement's), then the parameters and the
    // matrices no step prints. Rows are tokens; "concat" and "hidden" label their columns.
    MatrixList matrices() const;
};

// The block on X in `placement`, the other placement, and the parameter counts of this
// block (d_ff hidden units), of Transformer Base (attention without biases) and GPT-2 small.
BlockPass block_pass(const Matrix& X, const BlockParams& params, NormPlacement placement);
