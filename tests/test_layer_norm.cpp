// Layer normalisation against values computed by hand, and the properties the
// lesson claims: mean 0 and variance 1 per row, blind to a row's shift and scale.
#include <doctest/doctest.h>

#include <cmath>

#include "common/block/layer_norm.hpp"
#include "common/numbers/random.hpp"

namespace {
double row_mean(const Matrix& m, std::size_t i) {
    double s = 0.0;
    for (std::size_t j = 0; j < cols(m); ++j) s += m(i, j);
    return s / double(cols(m));
}
double row_variance(const Matrix& m, std::size_t i) {
    const double mu = row_mean(m, i);
    double s = 0.0;
    for (std::size_t j = 0; j < cols(m); ++j) s += (m(i, j) - mu) * (m(i, j) - mu);
    return s / double(cols(m));
}
}  // namespace

TEST_CASE("layer norm of a hand-computed row: (1, 2, 3, 4)") {
    // μ = 2.5, σ² = (2.25 + 0.25 + 0.25 + 2.25) / 4 = 1.25 (divided by d, not d − 1)
    const Matrix x = {{1.0f, 2.0f, 3.0f, 4.0f}};
    const Matrix x_hat = normalise_rows(x);
    const double s = std::sqrt(1.25 + 1e-5);
    CHECK(x_hat(0, 0) == doctest::Approx(-1.5 / s).epsilon(1e-6));
    CHECK(x_hat(0, 1) == doctest::Approx(-0.5 / s).epsilon(1e-6));
    CHECK(x_hat(0, 2) == doctest::Approx(0.5 / s).epsilon(1e-6));
    CHECK(x_hat(0, 3) == doctest::Approx(1.5 / s).epsilon(1e-6));
    // γ and β act per column: y_j = γ_j · x̂_j + β_j
    const LayerNormParams p{Vector({2.0f, 1.0f, 0.0f, -1.0f}), Vector({0.5f, 0.0f, 3.0f, 1.0f})};
    const Matrix y = layer_norm(x, p);
    CHECK(y(0, 0) == doctest::Approx(2.0 * -1.5 / s + 0.5).epsilon(1e-6));
    CHECK(y(0, 1) == doctest::Approx(-0.5 / s).epsilon(1e-6));
    CHECK(y(0, 2) == doctest::Approx(3.0).epsilon(1e-6));
    CHECK(y(0, 3) == doctest::Approx(-1.5 / s + 1.0).epsilon(1e-6));
}

TEST_CASE("layer norm: every row gets mean 0 and variance σ²/(σ² + ε) ≈ 1") {
    Random random(7);
    Matrix x = random.normal_matrix(6, 32, 3.0f);
    // A large mean: floats near 100 are 8e-6 apart, so x̂ is good to about 1e-5 there;
    // the one-pass E[x²] − E[x]² would lose far more (and can go negative).
    for (std::size_t j = 0; j < 32; ++j) x(2, j) += 100.0f;
    const Matrix x_hat = normalise_rows(x);
    for (std::size_t i = 0; i < rows(x); ++i) {
        const double var = row_variance(x, i);
        CHECK(std::abs(row_mean(x_hat, i)) < 1e-5);
        CHECK(row_variance(x_hat, i) == doctest::Approx(var / (var + 1e-5)).epsilon(1e-5));
        CHECK(row_variance(x_hat, i) == doctest::Approx(1.0).epsilon(1e-4));
    }
    // identity γ = 1, β = 0 gives x̂ itself
    CHECK(xt::allclose(layer_norm(x, identity_layer_norm(32)), x_hat));
}

TEST_CASE("layer norm ignores a row's shift and scale: LN(a·x + c) = LN(x) for a > 0") {
    Random random(11);
    const Matrix x = random.normal_matrix(4, 16);
    const Matrix moved = 5.0f * x + 2.0f;
    CHECK(xt::allclose(normalise_rows(moved), normalise_rows(x), 1e-4, 1e-4));
    // and a negative a flips the sign
    CHECK(xt::allclose(normalise_rows(-1.0f * x), -1.0f * normalise_rows(x), 1e-5, 1e-5));
}

TEST_CASE("layer norm of a constant row: ε keeps it finite, the output is β") {
    const Matrix x = {{3.0f, 3.0f, 3.0f}};
    const LayerNormParams p{Vector({2.0f, 2.0f, 2.0f}), Vector({0.1f, 0.2f, 0.3f})};
    const Matrix y = layer_norm(x, p);
    CHECK(y(0, 0) == doctest::Approx(0.1));
    CHECK(y(0, 1) == doctest::Approx(0.2));
    CHECK(y(0, 2) == doctest::Approx(0.3));
}

TEST_CASE("layer norm refuses γ or β of the wrong width") {
    const Matrix x = {{1.0f, 2.0f}};
    CHECK_THROWS(layer_norm(x, identity_layer_norm(3)));
}
