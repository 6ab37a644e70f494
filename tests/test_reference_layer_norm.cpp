// The reference layer norm (common/reference/) against a row worked by hand.
#include <doctest/doctest.h>

#include <cmath>

#include "common/reference/layer_norm_by_loops.hpp"

TEST_CASE("reference: layer norm of (1, 2, 3) is (−1, 0, 1)·√(3/2) before γ and β, ε = 0") {
    Matrix x = Matrix::from_shape({1, 3});
    x(0, 0) = 1.0f, x(0, 1) = 2.0f, x(0, 2) = 3.0f;  // μ = 2, σ² = 2/3
    Vector gamma = Vector::from_shape({3}), beta = Vector::from_shape({3});
    gamma.fill(1.0f), beta.fill(0.0f);
    const Matrix y = layer_norm_by_loops(x, gamma, beta, 0.0);
    CHECK(y(0, 0) == doctest::Approx(-std::sqrt(1.5)));
    CHECK(y(0, 1) == doctest::Approx(0.0));
    CHECK(y(0, 2) == doctest::Approx(std::sqrt(1.5)));
    gamma(2) = 2.0f, beta(2) = 0.5f;  // γ scales and β shifts its own column only
    CHECK(layer_norm_by_loops(x, gamma, beta, 0.0)(0, 2) == doctest::Approx(2.0 * std::sqrt(1.5) + 0.5));
}

TEST_CASE("reference: a constant row has variance 0 and becomes β (ε keeps the division finite)") {
    Matrix x = Matrix::from_shape({2, 4});
    x.fill(7.0f);
    Vector gamma = Vector::from_shape({4}), beta = Vector::from_shape({4});
    gamma.fill(3.0f), beta.fill(-0.25f);
    const Matrix y = layer_norm_by_loops(x, gamma, beta);
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 4; ++j) CHECK(y(i, j) == -0.25f);
}
