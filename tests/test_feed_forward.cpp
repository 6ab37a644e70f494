// The linear layer and the position-wise feed-forward network, against values
// computed by hand, and the property that it treats every token alike.
#include <doctest/doctest.h>

#include <cmath>

#include <xtensor/xview.hpp>

#include "common/block/feed_forward.hpp"
#include "common/numbers/linear.hpp"
#include "common/numbers/random.hpp"

TEST_CASE("linear: x · W + b by hand") {
    const Matrix x = {{1.0f, 2.0f}, {0.0f, -1.0f}};
    const Matrix W = {{1.0f, 0.0f, 2.0f}, {3.0f, 1.0f, -1.0f}};
    const Matrix y = linear(x, W, Vector({0.5f, 0.0f, -0.5f}));
    const Matrix expected = {{7.5f, 2.0f, -0.5f}, {-2.5f, -1.0f, 0.5f}};
    CHECK(xt::allclose(y, expected));
    CHECK_THROWS(linear(x, W, Vector({1.0f})));
    CHECK(as_row(Vector({1.0f, 2.0f})) == Matrix{{1.0f, 2.0f}});
}

TEST_CASE("relu and gelu at known points") {
    CHECK(relu(-2.0f) == 0.0f);
    CHECK(relu(0.0f) == 0.0f);
    CHECK(relu(1.5f) == 1.5f);
    CHECK(gelu(0.0f) == 0.0f);
    // 0.5 · z · (1 + tanh(√(2/π)(z + 0.044715 z³))) at z = ±1: 0.841192, −0.158808
    CHECK(gelu(1.0f) == doctest::Approx(0.841192).epsilon(1e-5));
    CHECK(gelu(-1.0f) == doctest::Approx(-0.158808).epsilon(1e-5));
    // far from 0 GELU is ReLU
    CHECK(gelu(6.0f) == doctest::Approx(6.0).epsilon(1e-6));
    CHECK(std::abs(gelu(-6.0f)) < 1e-6);
}

TEST_CASE("the feed-forward network by hand: max(0, x · W_1 + b_1) · W_2 + b_2") {
    FeedForward f;
    f.W_1 = {{1.0f, -1.0f, 0.0f}, {0.0f, 1.0f, 2.0f}};  // (2 × 3)
    f.b_1 = Vector({0.0f, 0.5f, -1.0f});
    f.W_2 = {{1.0f, 0.0f}, {0.0f, 1.0f}, {1.0f, 1.0f}};  // (3 × 2)
    f.b_2 = Vector({0.25f, -0.25f});
    const Matrix x = {{1.0f, 1.0f}, {-1.0f, 0.0f}};
    const FeedForwardSteps s = feed_forward(f, x);
    // row 0: pre (1, 0.5, 1) → hidden (1, 0.5, 1) → (1 + 1, 0.5 + 1) + b_2 = (2.25, 1.25)
    // row 1: pre (−1, 1.5, −1) → hidden (0, 1.5, 0) → (0, 1.5) + b_2 = (0.25, 1.25)
    CHECK(s.pre_activation == Matrix{{1.0f, 0.5f, 1.0f}, {-1.0f, 1.5f, -1.0f}});
    CHECK(s.hidden == Matrix{{1.0f, 0.5f, 1.0f}, {0.0f, 1.5f, 0.0f}});
    CHECK(xt::allclose(s.output, Matrix{{2.25f, 1.25f}, {0.25f, 1.25f}}));
    f.activation = Activation::gelu;
    const FeedForwardSteps g = feed_forward(f, x);
    CHECK(g.hidden(1, 0) == doctest::Approx(gelu(-1.0f)));
    CHECK(g.hidden(1, 0) < 0.0f);  // GELU lets a little of a negative through
}

TEST_CASE("the feed-forward network is position-wise: permuting rows permutes its output") {
    Random random(3);
    FeedForward f{random.normal_matrix(8, 32, 0.3f), Vector(), random.normal_matrix(32, 8, 0.3f), Vector()};
    f.b_1 = xt::view(random.normal_matrix(1, 32), 0, xt::all());
    f.b_2 = xt::view(random.normal_matrix(1, 8), 0, xt::all());
    const Matrix x = random.normal_matrix(5, 8);
    const std::size_t order[] = {3, 0, 4, 1, 2};
    Matrix permuted = Matrix::from_shape(x.shape());
    for (std::size_t i = 0; i < 5; ++i) xt::view(permuted, i, xt::all()) = xt::view(x, order[i], xt::all());
    const Matrix out = feed_forward(f, x).output;
    const Matrix out_permuted = feed_forward(f, permuted).output;
    for (std::size_t i = 0; i < 5; ++i)
        for (std::size_t j = 0; j < 8; ++j) CHECK(out_permuted(i, j) == doctest::Approx(out(order[i], j)).epsilon(1e-5));
    // and a row alone gives the same row
    const Matrix row = xt::view(x, xt::range(2, 3), xt::all());
    const Matrix alone = feed_forward(f, row).output;
    for (std::size_t j = 0; j < 8; ++j) CHECK(alone(0, j) == doctest::Approx(out(2, j)).epsilon(1e-5));
}
