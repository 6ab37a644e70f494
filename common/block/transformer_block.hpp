// One transformer block: multi-head self-attention and a feed-forward network,
// each wrapped in a residual connection and a layer normalisation.
//
//   pre-norm  (GPT-2):               r = X + MHA(LN1(X));   Y = r + FFN(LN2(r))
//   post-norm (Vaswani et al. 2017): r = LN1(X + MHA(X));   Y = LN2(r + FFN(r))
//
// Shapes: X and Y (n × d_model); Q, K, V (n × d_model), cut into h heads of
// d_k = d_model / h columns; each head's weights (n × n); hidden (n × d_ff).
// Every linear map has a bias, as in the paper and in GPT-2.
#pragma once

#include <cstdint>
#include <vector>

#include "common/attention/multi_head.hpp"
#include "common/block/attention_parameters.hpp"
#include "common/block/feed_forward.hpp"
#include "common/block/layer_norm.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/random.hpp"

enum class NormPlacement { pre, post };

struct AttentionParams {
    Matrix W_Q, W_K, W_V, W_O;  // (d_model × d_model) each; head i owns d_k columns (rows of W_O)
    Vector b_Q, b_K, b_V, b_O;  // (d_model) each
};

struct BlockParams {
    std::size_t heads = 1;  // h
    LayerNormParams ln1;    // before attention (pre-norm) or after its residual (post-norm)
    AttentionParams attention;
    LayerNormParams ln2;    // before the FFN (pre-norm) or after its residual (post-norm)
    FeedForward ffn;
};

// Every intermediate of one pass through the block, in the order it is computed.
// attention_sublayer fills Q, K, V, weights, concat and attention only.
struct BlockSteps {
    Matrix ln1;               // (n × d_model)  LN1(X) (pre) or LN1(residual1) (post)
    Matrix Q, K, V;           // (n × d_model)  what the attention sub-layer reads, projected
    Heads weights;            // (h × n × n)    each head's attention weights
    Matrix concat;            // (n × d_model)  the heads' outputs side by side
    Matrix attention;         // (n × d_model)  concat · W_O + b_O
    Matrix residual1;         // (n × d_model)  X + attention
    Matrix ln2;               // (n × d_model)  LN2(residual1) (pre) or LN2(residual2) (post)
    FeedForwardSteps ffn;     // hidden (n × d_ff), output (n × d_model)
    Matrix residual2;         // (n × d_model)  (residual1 or ln1) + ffn.output
    Matrix output;            // (n × d_model)  residual2 (pre) or ln2 (post): the block's output
};

// The multi-head attention sub-layer with biases: Q = x · W_Q + b_Q (and K, V),
// attention on each head, the heads concatenated, then · W_O + b_O.
BlockSteps attention_sublayer(const Matrix& x, const AttentionParams& params, std::size_t heads);

BlockSteps transformer_block(const Matrix& X, const BlockParams& params, NormPlacement placement);

// How to draw the weight matrices:
//   xavier  N(0, 2 / (fan_in + fan_out)), Glorot and Bengio 2010: keeps the spread of
//           the numbers about the same from layer to layer
//   gpt2    N(0, 0.02²), GPT-2's initialisation
enum class Init { xavier, gpt2 };

// Random parameters for a block of width d_model with h heads and d_ff hidden units.
// Matrices by `init`; the biases, β and γ − 1 from N(0, 0.1²) (a fresh model starts
// them at 0, 0 and 1; drawing them makes every term of the formulas visible).
BlockParams random_block_params(Random& random, std::size_t d_model, std::size_t heads, std::size_t d_ff, Init init,
                                Activation activation = Activation::relu);

// Parameter counts of one block, from the formulas (not published numbers: the
// Transformer paper gives only whole-model sizes, 65 M for its base model).
struct BlockParameterCount {
    std::uint64_t attention;     // 4 · d_model² (W_Q, W_K, W_V, W_O) + 4 · d_model when they have biases
    std::uint64_t feed_forward;  // 2 · d_model · d_ff + d_ff + d_model
    std::uint64_t layer_norms;   // 2 · 2 · d_model (γ and β of LN1 and LN2)
    std::uint64_t total() const { return attention + feed_forward + layer_norms; }
};

// This block's attention has biases (the default); the paper's has none
// (attention_parameters.hpp), so its Transformer Base is counted with AttentionBiases::none.
BlockParameterCount count_block_parameters(std::uint64_t d_model, std::uint64_t d_ff,
                                           AttentionBiases biases = AttentionBiases::with_biases);

// The number of floats actually held by `params`.
std::uint64_t parameter_count(const BlockParams& params);
