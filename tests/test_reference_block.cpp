// The reference block (common/reference/block_by_loops) against small cases worked by hand
// and closed forms: the linear map, GELU, the feed-forward, multi-head attention with its
// projections and W_O, and the whole block with sub-layers that add nothing.
#include <doctest/doctest.h>

#include <cmath>

#include "common/reference/block_by_loops.hpp"
#include "tests/matrix_literal.hpp"

namespace {
Vector vector(std::size_t size, float value) {
    Vector v = Vector::from_shape({size});
    v.fill(value);
    return v;
}
Matrix identity(std::size_t d) {
    Matrix m = Matrix::from_shape({d, d});
    m.fill(0.0f);
    for (std::size_t i = 0; i < d; ++i) m(i, i) = 1.0f;
    return m;
}
// Attention whose projections are the identity and whose biases are 0.
AttentionParams identity_attention(std::size_t d) {
    return {identity(d), identity(d), identity(d), identity(d), vector(d, 0), vector(d, 0), vector(d, 0), vector(d, 0)};
}
}  // namespace

TEST_CASE("reference: x · W + b by hand") {
    const Matrix x = matrix(1, 2, {1, 2}), W = matrix(2, 2, {1, 2, 3, 4});
    Vector b = vector(2, 0.5f);
    b(1) = -1.0f;
    const Matrix y = linear_by_loops(x, W, b);  // (1·1 + 2·3 + 0.5, 1·2 + 2·4 − 1)
    CHECK(y(0, 0) == 7.5f);
    CHECK(y(0, 1) == 9.0f);
}

TEST_CASE("reference: GELU is 0 at 0, about z far right, about 0 far left, 0.841192 at 1") {
    CHECK(gelu_by_formula(0.0) == 0.0);
    CHECK(gelu_by_formula(10.0) == doctest::Approx(10.0));
    CHECK(gelu_by_formula(-10.0) == doctest::Approx(0.0));
    CHECK(gelu_by_formula(1.0) == doctest::Approx(0.841192).epsilon(1e-6));
    CHECK(gelu_by_formula(-1.0) == doctest::Approx(-0.158808).epsilon(1e-5));  // 1 − 0.841192 below 0
}

TEST_CASE("reference: the feed-forward of one number by hand, ReLU and GELU") {
    // d_model = 1, d_ff = 2: hidden = act(x, −x), output = 2·hidden_0 + 3·hidden_1 + 1
    FeedForward f{matrix(1, 2, {1, -1}), vector(2, 0), matrix(2, 1, {2, 3}), vector(1, 1), Activation::relu};
    const Matrix y = feed_forward_by_loops(f, matrix(2, 1, {2, -1}));
    CHECK(y(0, 0) == 5.0f);  // hidden (2, 0)
    CHECK(y(1, 0) == 4.0f);  // hidden (0, 1)
    f.activation = Activation::gelu;
    CHECK(feed_forward_by_loops(f, matrix(1, 1, {1}))(0, 0) ==
          doctest::Approx(2 * 0.841192 + 3 * -0.158808 + 1).epsilon(1e-5));
}

TEST_CASE("reference: multi-head attention with W_Q = W_K = 0 gives each head the mean of the values") {
    // Every score is 0, so every weight is 1/3 and each head's output is the mean of V's rows;
    // W_O swaps the two columns, b_O adds 1.
    AttentionParams p = identity_attention(2);
    p.W_Q.fill(0.0f), p.W_K.fill(0.0f);
    p.W_O = matrix(2, 2, {0, 1, 1, 0});
    p.b_O = vector(2, 1.0f);
    const Matrix x = matrix(3, 2, {1, 10, 2, 20, 6, 60});  // column means 3 and 30
    const MultiHeadByLoops r = multi_head_by_loops(x, p, 2);
    REQUIRE(r.heads.weights.size() == 2);
    for (const Matrix& w : r.heads.weights)
        for (const float v : w) CHECK(v == doctest::Approx(1.0 / 3.0));
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(r.heads.output(i, 0) == doctest::Approx(3.0));
        CHECK(r.heads.output(i, 1) == doctest::Approx(30.0));
        CHECK(r.output(i, 0) == doctest::Approx(31.0));  // the columns swapped, + 1
        CHECK(r.output(i, 1) == doctest::Approx(4.0));
    }
    CHECK(r.value_size == doctest::Approx(60.0));  // max |v| = 60, every column of W_O sums to 1
}

TEST_CASE("reference: multi-head attention scales by 1/√d_k: scores √2·ln 3 apart give weights 3/4, 1/4") {
    // One head of d_k = 2, identity projections: q_0 = k_0 = (a, 0), k_1 = 0, a² = √2·ln 3,
    // so the scaled scores are ln 3 and 0.
    const float a = float(std::sqrt(std::sqrt(2.0) * std::log(3.0)));
    const MultiHeadByLoops r = multi_head_by_loops(matrix(2, 2, {a, 0, 0, 0}), identity_attention(2), 1);
    CHECK(r.heads.weights[0](0, 0) == doctest::Approx(0.75).epsilon(1e-6));
    CHECK(r.heads.weights[0](0, 1) == doctest::Approx(0.25).epsilon(1e-6));
    CHECK(r.output(0, 0) == doctest::Approx(0.75 * a).epsilon(1e-6));
    CHECK(r.output(0, 1) == 0.0f);
}

TEST_CASE("reference: the block with silent sub-layers: pre-norm is X, post-norm LN2(LN1(X)), a bias goes on") {
    BlockParams p;
    p.heads = 1;
    p.attention = identity_attention(3);
    p.attention.W_O.fill(0.0f);  // attention adds b_O only
    p.ln1 = p.ln2 = {vector(3, 1.0f), vector(3, 0.0f)};
    p.ffn = {Matrix::from_shape({3, 4}), vector(4, 0.5f), Matrix::from_shape({4, 3}), vector(3, 0.0f)};
    p.ffn.W_1.fill(1.0f), p.ffn.W_2.fill(0.0f);  // the FFN adds b_2 only
    const Matrix X = matrix(2, 3, {1, 2, 3, -4, 0, 4});
    const Matrix pre = block_by_loops(X, p, NormPlacement::pre);
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 3; ++j) CHECK(pre(i, j) == X(i, j));
    // post-norm: (1, 2, 3) and (−4, 0, 4) both become (−1, 0, 1)·√(3/2) (up to ε), and again
    const Matrix post = block_by_loops(X, p, NormPlacement::post);
    for (std::size_t i = 0; i < 2; ++i) {
        CHECK(post(i, 0) == doctest::Approx(-std::sqrt(1.5)).epsilon(1e-4));
        CHECK(post(i, 1) == doctest::Approx(0.0));
        CHECK(post(i, 2) == doctest::Approx(std::sqrt(1.5)).epsilon(1e-4));
    }
    // pre-norm: the residual stream carries X, and each sub-layer's bias is added to it
    p.attention.b_O = vector(3, 0.25f), p.ffn.b_2 = vector(3, 0.5f);
    const Matrix shifted = block_by_loops(X, p, NormPlacement::pre);
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 3; ++j) CHECK(shifted(i, j) == doctest::Approx(X(i, j) + 0.75));
}
