#include "chapters/12_transformer_block/math.hpp"

#include <cmath>

#include "common/math/attention_parameters.hpp"
#include "common/math/input_error.hpp"

// x (n × d_model) → x̂ (n × d_model). Each row is one token, normalised on its own:
// the rows never mix (batch normalisation would mix them, down the columns).
Matrix normalise_tokens(const Matrix& x) {
    const std::size_t n = rows(x), d = cols(x);
    Matrix x_hat = Matrix::from_shape(x.shape());
    // ┌ exercise layer-norm
    for (std::size_t i = 0; i < n; ++i) {
        // pass 1: the row's mean μ
        float mean = 0.0f;
        for (std::size_t j = 0; j < d; ++j) mean += x(i, j);
        mean /= static_cast<float>(d);
        // pass 2: its variance σ², divided by d (not d − 1), around the mean of pass 1:
        // the one-pass E[x²] − E[x]² loses digits in float32 when the mean is large
        float variance = 0.0f;
        for (std::size_t j = 0; j < d; ++j) variance += (x(i, j) - mean) * (x(i, j) - mean);
        variance /= static_cast<float>(d);
        // pass 3: x̂ = (x − μ) / √(σ² + ε); ε keeps a constant row (σ² = 0) finite
        const float inv_std = 1.0f / std::sqrt(variance + layer_norm_epsilon);
        for (std::size_t j = 0; j < d; ++j) x_hat(i, j) = (x(i, j) - mean) * inv_std;
    }
    // └ stub: x_hat.fill(0.0f);
    return x_hat;
}

// x (n × d_model), γ and β (d_model) → (n × d_model)
Matrix layer_norm_tokens(const Matrix& x, const LayerNormParams& p) {
    if (p.gamma.size() != cols(x) || p.beta.size() != cols(x))
        throw InputError(describe("layer norm: γ has ", p.gamma.size(), " and β ", p.beta.size(),
                                  " entries for rows of width ", cols(x)));
    Matrix y = normalise_tokens(x);
    for (std::size_t i = 0; i < rows(y); ++i)
        for (std::size_t j = 0; j < cols(y); ++j) y(i, j) = p.gamma(j) * y(i, j) + p.beta(j);  // γ_j · x̂_ij + β_j
    return y;
}

namespace {

// post-norm (the paper): r = LN1(X + MHA(X)); Y = LN2(r + FFN(r)). X (n × d_model) → every intermediate
BlockSteps post_norm_block(const Matrix& X, const BlockParams& p) {
    // sub-layer 1: attention reads X, and the sum itself is normalised
    BlockSteps s = attention_sublayer(X, p.attention, p.heads);  // Q, K, V, weights, concat, attention
    s.residual1 = X + s.attention;                                // (n × d_model)
    s.ln1 = layer_norm_tokens(s.residual1, p.ln1);                // LN(x + Sublayer(x))
    // sub-layer 2: the FFN on ln1, its sum normalised again: the block's output
    s.ffn = feed_forward(p.ffn, s.ln1);                           // hidden (n × d_ff), output (n × d_model)
    s.residual2 = s.ln1 + s.ffn.output;
    s.ln2 = layer_norm_tokens(s.residual2, p.ln2);
    s.output = s.ln2;
    return s;
}

// pre-norm (GPT-2): r = X + MHA(LN1(X)); Y = r + FFN(LN2(r)). X (n × d_model) → every intermediate
BlockSteps pre_norm_block(const Matrix& X, const BlockParams& p) {
    // ┌ exercise pre-norm
    // sub-layer 1: attention reads a normalised copy, and X itself goes on
    const Matrix ln1 = layer_norm_tokens(X, p.ln1);                // (n × d_model)
    BlockSteps s = attention_sublayer(ln1, p.attention, p.heads);  // Q, K, V, weights, concat, attention
    s.ln1 = ln1;
    s.residual1 = X + s.attention;                                 // (n × d_model) x + Sublayer(LN(x))
    // sub-layer 2: the FFN, wired the same way around the stream
    s.ln2 = layer_norm_tokens(s.residual1, p.ln2);                 // (n × d_model)
    s.ffn = feed_forward(p.ffn, s.ln2);                            // hidden (n × d_ff), output (n × d_model)
    s.residual2 = s.residual1 + s.ffn.output;                      // (n × d_model)
    s.output = s.residual2;
    return s;
    // └ stub: return post_norm_block(X, p);
}

}  // namespace

BlockSteps block_forward(const Matrix& X, const BlockParams& p, NormPlacement placement) {
    return placement == NormPlacement::pre ? pre_norm_block(X, p) : post_norm_block(X, p);
}

TransformerBlockLesson transformer_block_lesson(const Matrix& X, const BlockParams& params, NormPlacement placement) {
    TransformerBlockLesson r;
    const bool pre = placement == NormPlacement::pre;
    r.s = block_forward(X, params, placement);
    r.ln1_input = pre ? X : r.s.residual1;
    r.ln2_input = pre ? r.s.residual1 : r.s.residual2;
    r.x_hat1 = normalise_tokens(r.ln1_input);
    r.x_hat2 = normalise_tokens(r.ln2_input);
    r.other_output = block_forward(X, params, pre ? NormPlacement::post : NormPlacement::pre).output;
    r.drawn = parameter_count(params);
    r.toy = count_block_parameters(cols(X), cols(params.ffn.W_1));
    // The paper's attention has no biases (as chapter 07 counts it); its FFN has them.
    r.base = count_block_parameters(512, 2048, AttentionBiases::none);
    r.gpt2 = count_block_parameters(768, 3072);
    return r;
}
