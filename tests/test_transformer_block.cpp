// The transformer block: it keeps the sequence's shape, treats every position
// alike, is the identity in pre-norm when its sub-layers add nothing, and its
// parameter counts follow the formulas (GPT-2's total is its published 124M).
#include <doctest/doctest.h>

#include <cmath>

#include <xtensor/xview.hpp>

#include "common/attention/attention.hpp"
#include "common/block/transformer_block.hpp"
#include "common/numbers/linear.hpp"
#include "common/numbers/random.hpp"

namespace {
Matrix permuted_rows(const Matrix& m, const std::vector<std::size_t>& order) {
    Matrix p = Matrix::from_shape(m.shape());
    for (std::size_t i = 0; i < order.size(); ++i) xt::view(p, i, xt::all()) = xt::view(m, order[i], xt::all());
    return p;
}
}  // namespace

TEST_CASE("the block keeps the sequence's shape, in both placements") {
    Random random(1);
    const BlockParams p = random_block_params(random, 12, 3, 48, Init::xavier);
    const Matrix X = random.normal_matrix(7, 12);
    for (const NormPlacement placement : {NormPlacement::pre, NormPlacement::post}) {
        const BlockSteps s = transformer_block(X, p, placement);
        CHECK(s.output.shape() == X.shape());
        CHECK(s.ffn.hidden.shape(1) == 48);
        CHECK(s.weights.shape(0) == 3);
        CHECK(s.weights.shape(1) == 7);
        CHECK(s.weights.shape(2) == 7);
    }
}

TEST_CASE("pre-norm: with zero sub-layer outputs the block is exactly the identity") {
    Random random(2);
    BlockParams p = random_block_params(random, 8, 2, 32, Init::xavier);
    p.attention.W_O.fill(0.0f);
    p.attention.b_O.fill(0.0f);
    p.ffn.W_2.fill(0.0f);
    p.ffn.b_2.fill(0.0f);
    const Matrix X = random.normal_matrix(5, 8);
    CHECK(transformer_block(X, p, NormPlacement::pre).output == X);
    // post-norm normalises the stream itself: the output is LN2(LN1(X)), not X
    const Matrix post = transformer_block(X, p, NormPlacement::post).output;
    CHECK(xt::allclose(post, layer_norm(layer_norm(X, p.ln1), p.ln2)));
    CHECK_FALSE(xt::allclose(post, X));
}

TEST_CASE("pre-norm is x + Sublayer(LN(x)) and post-norm LN(x + Sublayer(x)), written out") {
    Random random(3);
    const BlockParams p = random_block_params(random, 6, 2, 24, Init::xavier);
    const Matrix X = random.normal_matrix(4, 6);
    const auto mha = [&](const Matrix& x) { return attention_sublayer(x, p.attention, p.heads).attention; };
    const auto ffn = [&](const Matrix& x) { return feed_forward(p.ffn, x).output; };
    const Matrix r_pre = X + mha(layer_norm(X, p.ln1));
    const Matrix pre = r_pre + ffn(layer_norm(r_pre, p.ln2));
    CHECK(xt::allclose(transformer_block(X, p, NormPlacement::pre).output, pre, 1e-5, 1e-5));
    const Matrix r_post = layer_norm(X + mha(X), p.ln1);
    const Matrix post = layer_norm(r_post + ffn(r_post), p.ln2);
    CHECK(xt::allclose(transformer_block(X, p, NormPlacement::post).output, post, 1e-5, 1e-5));
}

TEST_CASE("the attention sub-layer with one head is plain attention on the projections") {
    Random random(4);
    const BlockParams p = random_block_params(random, 6, 1, 24, Init::xavier);
    const Matrix X = random.normal_matrix(5, 6);
    const BlockSteps s = attention_sublayer(X, p.attention, 1);
    const AttentionSteps a = scaled_dot_product_attention(linear(X, p.attention.W_Q, p.attention.b_Q),
                                                          linear(X, p.attention.W_K, p.attention.b_K),
                                                          linear(X, p.attention.W_V, p.attention.b_V));
    CHECK(xt::allclose(s.concat, a.output, 1e-5, 1e-5));
    CHECK(xt::allclose(s.attention, linear(a.output, p.attention.W_O, p.attention.b_O), 1e-5, 1e-5));
}

TEST_CASE("with no positional encoding, permuting the tokens permutes the block's output") {
    Random random(5);
    const BlockParams p = random_block_params(random, 8, 4, 32, Init::xavier);
    const Matrix X = random.normal_matrix(6, 8);
    const std::vector<std::size_t> order = {5, 2, 0, 1, 4, 3};
    for (const NormPlacement placement : {NormPlacement::pre, NormPlacement::post}) {
        const Matrix out = transformer_block(X, p, placement).output;
        const Matrix out_of_permuted = transformer_block(permuted_rows(X, order), p, placement).output;
        CHECK(xt::allclose(out_of_permuted, permuted_rows(out, order), 1e-5, 1e-5));
    }
}

TEST_CASE("initialisation scales: Xavier's spread is √(2 / (fan_in + fan_out)), GPT-2's 0.02") {
    Random random(6);
    const BlockParams xavier = random_block_params(random, 64, 4, 256, Init::xavier);
    const BlockParams gpt2 = random_block_params(random, 64, 4, 256, Init::gpt2);
    const auto spread = [](const Matrix& m) {
        double s = 0.0;
        for (const float v : m) s += double(v) * v;
        return std::sqrt(s / double(m.size()));
    };
    CHECK(spread(xavier.ffn.W_1) == doctest::Approx(std::sqrt(2.0 / 320.0)).epsilon(0.05));
    CHECK(spread(xavier.attention.W_Q) == doctest::Approx(std::sqrt(2.0 / 128.0)).epsilon(0.05));
    CHECK(spread(gpt2.ffn.W_2) == doctest::Approx(0.02).epsilon(0.05));
}

TEST_CASE("parameter counts: the formulas, the drawn weights and the published sizes") {
    // 4·d² + 4·d, 2·d·d_ff + d_ff + d, 4·d, for d = 2, d_ff = 8: 24, 42, 8
    const BlockParameterCount tiny = count_block_parameters(2, 8);
    CHECK(tiny.attention == 24);
    CHECK(tiny.feed_forward == 42);
    CHECK(tiny.layer_norms == 8);
    Random random(7);
    CHECK(parameter_count(random_block_params(random, 10, 2, 40, Init::xavier)) == count_block_parameters(10, 40).total());
    // A block of Transformer Base's sizes with this block's attention biases
    const BlockParameterCount base = count_block_parameters(512, 2048);
    CHECK(base.attention == 1050624);
    CHECK(base.feed_forward == 2099712);
    CHECK(base.total() == 3152384);
    // Transformer Base as the paper writes it: no biases in attention, so chapter 07
    // (attention alone) and chapter 12 (the block) count the same 1 048 576.
    const BlockParameterCount paper = count_block_parameters(512, 2048, AttentionBiases::none);
    CHECK(paper.attention == 1048576);
    CHECK(paper.attention == attention_parameters(512, AttentionBiases::none));
    CHECK(paper.feed_forward == 2099712);
    CHECK(paper.total() == 3150336);
    CHECK(attention_parameters(768, AttentionBiases::with_biases) == count_block_parameters(768, 3072).attention);
    // GPT-2 small: 12 blocks, token and position embeddings, a final LayerNorm: 124M
    const BlockParameterCount gpt2 = count_block_parameters(768, 3072);
    CHECK(gpt2.total() == 7087872);
    CHECK(12 * gpt2.total() + 50257 * 768 + 1024 * 768 + 2 * 768 == 124439808);
}
