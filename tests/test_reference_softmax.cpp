// The reference softmax (common/reference/) against closed forms and rows worked by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "common/reference/softmax_by_loops.hpp"

TEST_CASE("reference softmax: equal scores give each of m keys 1/m") {
    Matrix s = Matrix::from_shape({2, 5});
    s.fill(-3.5f);
    const Matrix w = softmax_by_loops(s);
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 5; ++j) CHECK(w(i, j) == doctest::Approx(0.2));
}

TEST_CASE("reference softmax: scores ln 3 apart give 3/4 and 1/4, at any offset") {
    const float gap = float(std::log(3.0));
    for (const float offset : {0.0f, -40.0f, 1000.0f}) {  // exp(1000) alone would overflow
        CAPTURE(offset);
        Matrix s = Matrix::from_shape({1, 2});
        s(0, 0) = offset + gap, s(0, 1) = offset;
        const Matrix w = softmax_by_loops(s);
        CHECK(w(0, 0) == doctest::Approx(0.75).epsilon(1e-4));  // the offset's float rounding moves the gap
        CHECK(w(0, 1) == doctest::Approx(0.25).epsilon(1e-4));
    }
}

TEST_CASE("reference softmax: (0, ln 2, ln 5) gives (1, 2, 5) / 8, row by row") {
    Matrix s = Matrix::from_shape({2, 3});
    s(0, 0) = 0.0f, s(0, 1) = float(std::log(2.0)), s(0, 2) = float(std::log(5.0));
    s(1, 0) = float(std::log(5.0)), s(1, 1) = 0.0f, s(1, 2) = float(std::log(2.0));  // the same, rotated
    const Matrix w = softmax_by_loops(s);
    CHECK(w(0, 0) == doctest::Approx(1.0 / 8.0));
    CHECK(w(0, 1) == doctest::Approx(2.0 / 8.0));
    CHECK(w(0, 2) == doctest::Approx(5.0 / 8.0));
    CHECK(w(1, 0) == doctest::Approx(5.0 / 8.0));
    CHECK(w(1, 1) == doctest::Approx(1.0 / 8.0));
    CHECK(w(1, 2) == doctest::Approx(2.0 / 8.0));
}

TEST_CASE("reference softmax: a −∞ score gets 0, a row of −∞ is all 0, a NaN score makes its row NaN") {
    const float inf = std::numeric_limits<float>::infinity();
    Matrix s = Matrix::from_shape({3, 2});
    s(0, 0) = 1.0f, s(0, 1) = -inf;
    s(1, 0) = -inf, s(1, 1) = -inf;
    s(2, 0) = 0.0f, s(2, 1) = std::numeric_limits<float>::quiet_NaN();
    const Matrix w = softmax_by_loops(s);
    CHECK(w(0, 0) == 1.0f);
    CHECK(w(0, 1) == 0.0f);
    CHECK(w(1, 0) == 0.0f);
    CHECK(w(1, 1) == 0.0f);
    CHECK(std::isnan(w(2, 0)));
    CHECK(std::isnan(w(2, 1)));
}
