// The reference softmax backward (common/reference/) against rows worked by hand.
#include <doctest/doctest.h>

#include "common/reference/softmax_backward_by_jacobian.hpp"

TEST_CASE("reference softmax backward: p = (½, ½), dp = (1, 0) gives ds = (¼, −¼)") {
    // ds_0 = 1·½·(1 − ½) + 0 = ¼;  ds_1 = 1·½·(0 − ½) = −¼.
    Matrix P = Matrix::from_shape({1, 2}), dP = Matrix::from_shape({1, 2});
    P(0, 0) = P(0, 1) = 0.5f;
    dP(0, 0) = 1.0f, dP(0, 1) = 0.0f;
    const Matrix dS = softmax_backward_by_jacobian(P, dP);
    CHECK(dS(0, 0) == doctest::Approx(0.25));
    CHECK(dS(0, 1) == doctest::Approx(-0.25));
}

TEST_CASE("reference softmax backward: a masked key (p = 0) gets 0; a constant dp gives 0; rows sum to 0") {
    // p = (0.2, 0.8, 0), dp = (3, 1, 7): Σ_j dp_j p_j = 0.6 + 0.8 = 1.4, so
    // ds = (0.2·(3 − 1.4), 0.8·(1 − 1.4), 0) = (0.32, −0.32, 0).
    Matrix P = Matrix::from_shape({2, 3}), dP = Matrix::from_shape({2, 3});
    P(0, 0) = 0.2f, P(0, 1) = 0.8f, P(0, 2) = 0.0f;
    dP(0, 0) = 3.0f, dP(0, 1) = 1.0f, dP(0, 2) = 7.0f;
    P(1, 0) = 0.1f, P(1, 1) = 0.3f, P(1, 2) = 0.6f;
    dP(1, 0) = dP(1, 1) = dP(1, 2) = 5.0f;  // adding one number to every weight's gradient: no effect
    const Matrix dS = softmax_backward_by_jacobian(P, dP);
    CHECK(dS(0, 0) == doctest::Approx(0.32).epsilon(1e-6));
    CHECK(dS(0, 1) == doctest::Approx(-0.32).epsilon(1e-6));
    CHECK(dS(0, 2) == 0.0f);
    for (std::size_t k = 0; k < 3; ++k) CHECK(dS(1, k) == doctest::Approx(0.0).epsilon(1e-6));
}
