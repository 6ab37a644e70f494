// The reference positional encoding (common/reference/) against values worked by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "common/reference/positional_encoding_by_formula.hpp"

TEST_CASE("reference: position 0 is (sin 0, cos 0, …) = (0, 1, 0, 1, …)") {
    for (std::size_t c = 0; c < 9; ++c) CHECK(pe_by_formula(0, c, 9) == doctest::Approx(c % 2 == 0 ? 0.0 : 1.0));
}

TEST_CASE("reference: pair 0 turns by 1 radian per position; pair i by 1 / 10000^(2i/d_model)") {
    CHECK(pe_by_formula(3, 0, 2) == doctest::Approx(std::sin(3.0)));
    CHECK(pe_by_formula(3, 1, 2) == doctest::Approx(std::cos(3.0)));
    // d_model = 4, pair 1: 10000^(2/4) = 100, so position 100 has turned by 1 radian.
    CHECK(pe_by_formula(100, 2, 4) == doctest::Approx(std::sin(1.0)).epsilon(1e-12));
    CHECK(pe_by_formula(100, 3, 4) == doctest::Approx(std::cos(1.0)).epsilon(1e-12));
    // d_model = 8, pair 3: 10000^(6/8) = 1000; position 500 has turned by half a radian.
    CHECK(pe_by_formula(500, 6, 8) == doctest::Approx(std::sin(0.5)).epsilon(1e-12));
    // An odd d_model: its last column is a sine with no partner, pair (d_model − 1) / 2.
    CHECK(pe_by_formula(100, 4, 5) == doctest::Approx(std::sin(100.0 / std::pow(10000.0, 0.8))));
}

TEST_CASE("reference: pe_formula_error is the largest distance from the formula") {
    Matrix PE = Matrix::from_shape({2, 2});  // positions 0 and 1 of a width-2 encoding
    PE(0, 0) = 0.0f, PE(0, 1) = 1.0f, PE(1, 0) = float(std::sin(1.0)), PE(1, 1) = float(std::cos(1.0));
    CHECK(pe_formula_error(PE) < 1e-7);
    PE(1, 1) += 0.25f;
    CHECK(pe_formula_error(PE) == doctest::Approx(0.25).epsilon(1e-6));
    PE(0, 0) = std::numeric_limits<float>::quiet_NaN();
    CHECK(pe_formula_error(PE) == std::numeric_limits<double>::infinity());
}
