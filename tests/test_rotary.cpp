// common/attention/rotary (RoPE on a whole matrix, float32) against common/reference/rope_by_loops
// (a loop in double), and a quarter turn worked by hand.
#include <doctest/doctest.h>

#include <cmath>

#include "common/attention/rotary.hpp"
#include "common/reference/rope_by_loops.hpp"

namespace {
Matrix counting(std::size_t r, std::size_t c) {  // small numbers of both signs
    Matrix m = Matrix::from_shape({r, c});
    for (std::size_t i = 0; i < r; ++i)
        for (std::size_t j = 0; j < c; ++j) m(i, j) = float(std::sin(double(5 * i + 3 * j + 2)));
    return m;
}
}  // namespace

TEST_CASE("rotary: by hand, a quarter turn of pair 1 at position 1 sends (3, 4) to (−4, 3)") {
    const double pi = std::acos(-1.0), base = (2.0 / pi) * (2.0 / pi);  // d = 4: θ_1 = π/2
    Matrix M = Matrix::from_shape({2, 4});
    M.fill(0.0f);
    M(1, 0) = 1.0f, M(1, 2) = 3.0f, M(1, 3) = 4.0f;
    const Matrix R = rotary(M, 0, base);
    CHECK(R(1, 0) == doctest::Approx(std::cos(1.0)));  // θ_0 = 1: (1, 0) → (cos 1, sin 1)
    CHECK(R(1, 1) == doctest::Approx(std::sin(1.0)));
    CHECK(R(1, 2) == doctest::Approx(-4.0));
    CHECK(R(1, 3) == doctest::Approx(3.0));
}

TEST_CASE("rotary: equals the reference loop in double, at several widths and offsets") {
    for (const std::size_t d : {std::size_t{2}, std::size_t{4}, std::size_t{10}, std::size_t{64}})
        for (const std::size_t offset : {std::size_t{0}, std::size_t{7}, std::size_t{100000}}) {
            CAPTURE(d);
            CAPTURE(offset);
            const Matrix M = counting(9, d);
            const Matrix got = rotary(M, offset, 10000.0), want = rope_by_loops(M, offset, 10000.0);
            for (std::size_t t = 0; t < 9; ++t)
                for (std::size_t c = 0; c < d; ++c) CHECK(got(t, c) == doctest::Approx(want(t, c)).epsilon(1e-5));
        }
}
