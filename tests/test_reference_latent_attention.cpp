// The reference multi-head latent attention (common/reference/latent_attention_by_loops)
// against a case worked by hand: two tokens, one head of width 1, a RoPE part of width 2.
#include <doctest/doctest.h>

#include <cmath>

#include "common/reference/latent_attention_by_loops.hpp"

namespace {
Matrix of(std::size_t r, std::size_t c, std::initializer_list<float> values) {
    Matrix m = Matrix::from_shape({r, c});
    std::size_t k = 0;
    for (const float v : values) m(k / c, k % c) = v, ++k;
    return m;
}
}  // namespace

TEST_CASE("reference MLA: two tokens by hand, the score scaled by 1/√(d_h + d_h^R)") {
    // X = I; c_KV = (1, 2), K = (1, 2), V = (3, 6); c_Q = (1, 1), Q = (2, 2);
    // Q_rope unturned = (1, 0) for both, K_rope unturned = the rows of I; W_O = (1, −1).
    const Matrix X = of(2, 2, {1, 0, 0, 1});
    LatentWeights W;
    W.W_DKV = of(2, 1, {1, 2}), W.W_UK = of(1, 1, {1}), W.W_UV = of(1, 1, {3});
    W.W_DQ = of(2, 1, {1, 1}), W.W_UQ = of(1, 1, {2}), W.W_QR = of(1, 2, {1, 0});
    W.W_KR = of(2, 2, {1, 0, 0, 1}), W.W_O = of(1, 2, {1, -1});
    const LatentByLoops r = latent_attention_by_loops(X, W, 1, 10000.0);  // d = 2: θ_0 = 1 radian
    CHECK(r.c_KV(1, 0) == doctest::Approx(2.0));
    CHECK(r.V(1, 0) == doctest::Approx(6.0));
    // token 1 stands at position 1: q_R = (cos 1, sin 1), k_R = (0, 1) turned = (−sin 1, cos 1)
    CHECK(r.Q_rope(1, 0) == doctest::Approx(std::cos(1.0)));
    CHECK(r.K_rope(1, 0) == doctest::Approx(-std::sin(1.0)));
    // token 0 sees itself only: weight 1, output V_0 · W_O = (3, −3)
    CHECK(r.heads.weights[0](0, 0) == doctest::Approx(1.0));
    CHECK(r.heads.weights[0](0, 1) == 0.0f);
    CHECK(r.output(0, 0) == doctest::Approx(3.0));
    CHECK(r.output(0, 1) == doctest::Approx(-3.0));
    // token 1: s_10 = 2·1 + cos 1, s_11 = 2·2 + (cos 1, sin 1)·(−sin 1, cos 1) = 4, both / √3
    const double e0 = std::exp((2.0 + std::cos(1.0)) / std::sqrt(3.0)), e1 = std::exp(4.0 / std::sqrt(3.0));
    const double w0 = e0 / (e0 + e1), w1 = e1 / (e0 + e1);
    CHECK(r.heads.weights[0](1, 0) == doctest::Approx(w0));
    CHECK(r.heads.weights[0](1, 1) == doctest::Approx(w1));
    CHECK(r.output(1, 0) == doctest::Approx(3.0 * w0 + 6.0 * w1));
    CHECK(r.output(1, 1) == doctest::Approx(-(3.0 * w0 + 6.0 * w1)));
}

TEST_CASE("reference MLA: every head reads the one shared RoPE key") {
    const Matrix X = of(3, 2, {1, 0, 0, 1, 1, 1});
    LatentWeights W;
    W.W_DKV = of(2, 1, {1, 0}), W.W_UK = of(1, 2, {0, 0}), W.W_UV = of(1, 2, {1, 1});
    W.W_DQ = of(2, 1, {1, 1}), W.W_UQ = of(1, 2, {0, 0}), W.W_QR = of(1, 4, {1, 0, 1, 0});
    W.W_KR = of(2, 2, {1, 0, 0, 1}), W.W_O = of(2, 1, {1, 1});
    // The content scores are 0 (W_UK = W_UQ = 0) and both heads' RoPE queries are equal: same weights.
    const LatentByLoops r = latent_attention_by_loops(X, W, 2, 10000.0);
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 3; ++j) CHECK(r.heads.weights[0](i, j) == r.heads.weights[1](i, j));
    CHECK(r.heads.weights[0](2, 0) != doctest::Approx(r.heads.weights[0](2, 1)));
}
