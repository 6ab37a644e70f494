// The reference RoPE (common/reference/rope_by_loops) against cases worked by hand and the
// closed forms: position 0 turns nothing, a quarter turn by hand, a turn keeps every pair's
// length, and a score depends only on the distance between the two positions.
#include <doctest/doctest.h>

#include <cmath>

#include "common/reference/rope_by_loops.hpp"

namespace {
const double pi = std::acos(-1.0);
Matrix both_signs(std::size_t r, std::size_t c) {  // small numbers of both signs
    Matrix m = Matrix::from_shape({r, c});
    for (std::size_t i = 0; i < r; ++i)
        for (std::size_t j = 0; j < c; ++j) m(i, j) = float(std::sin(double(3 * i + 7 * j + 1)));
    return m;
}
double dot(const Matrix& a, std::size_t i, const Matrix& b, std::size_t j) {
    double s = 0.0;
    for (std::size_t c = 0; c < cols(a); ++c) s += double(a(i, c)) * double(b(j, c));
    return s;
}
}  // namespace

TEST_CASE("reference RoPE: position 0 turns nothing") {
    const Matrix M = both_signs(1, 6);
    const Matrix R = rope_by_loops(M, 0, 10000.0);
    for (std::size_t c = 0; c < 6; ++c) CHECK(R(0, c) == M(0, c));
}

TEST_CASE("reference RoPE: by hand, pair 0 turns 1 radian and pair 1 a quarter turn at position 1") {
    // d = 4: θ_0 = 1 and θ_1 = base^(−1/2) = π/2 when base = (2/π)².
    const double base = (2.0 / pi) * (2.0 / pi);
    Matrix M = Matrix::from_shape({1, 4});
    M(0, 0) = 1.0f, M(0, 1) = 0.0f, M(0, 2) = 3.0f, M(0, 3) = 4.0f;
    const Matrix R = rope_by_loops(M, 1, base);
    CHECK(R(0, 0) == doctest::Approx(std::cos(1.0)));  // (1, 0) → (cos 1, sin 1)
    CHECK(R(0, 1) == doctest::Approx(std::sin(1.0)));
    CHECK(R(0, 2) == doctest::Approx(-4.0));  // (a, b) → (−b, a): (3, 4) → (−4, 3)
    CHECK(R(0, 3) == doctest::Approx(3.0));
    // two rows: row t stands at position offset + t, so row 1 of offset 0 is at position 1 too
    Matrix two = Matrix::from_shape({2, 4});
    for (std::size_t c = 0; c < 4; ++c) two(0, c) = 0.0f, two(1, c) = M(0, c);
    CHECK(rope_by_loops(two, 0, base)(1, 2) == doctest::Approx(-4.0));
}

TEST_CASE("reference RoPE: a turn keeps the length of every pair, even 10⁶ positions away") {
    const Matrix M = both_signs(5, 8);
    for (const std::size_t offset : {std::size_t{0}, std::size_t{3}, std::size_t{1000000}}) {
        const Matrix R = rope_by_loops(M, offset, 10000.0);
        for (std::size_t t = 0; t < 5; ++t)
            for (std::size_t p = 0; p < 4; ++p)
                CHECK(std::hypot(double(R(t, 2 * p)), double(R(t, 2 * p + 1))) ==
                      doctest::Approx(std::hypot(double(M(t, 2 * p)), double(M(t, 2 * p + 1)))).epsilon(1e-6));
    }
}

TEST_CASE("reference RoPE: q_m · k_n depends only on m − n, and equals the closed form") {
    const Matrix Q = both_signs(4, 6), K = both_signs(5, 6) * 0.5f;
    const Matrix closed = rope_scores_by_distance(Q, K, 100.0);
    for (const std::size_t offset : {std::size_t{0}, std::size_t{7}, std::size_t{1000}}) {
        const Matrix Qr = rope_by_loops(Q, offset, 100.0), Kr = rope_by_loops(K, offset, 100.0);
        for (std::size_t i = 0; i < 4; ++i)
            for (std::size_t j = 0; j < 5; ++j) CHECK(dot(Qr, i, Kr, j) == doctest::Approx(closed(i, j)).epsilon(1e-5));
    }
    // the same distance, the same score: q and k one position apart, at 0 and 1 or at 2 and 3
    Matrix q = Matrix::from_shape({4, 2}), k = Matrix::from_shape({4, 2});
    for (std::size_t t = 0; t < 4; ++t) q(t, 0) = 1.0f, q(t, 1) = 2.0f, k(t, 0) = -1.0f, k(t, 1) = 0.5f;
    const Matrix d = rope_scores_by_distance(q, k, 10000.0);
    CHECK(d(0, 1) == doctest::Approx(d(2, 3)));
    CHECK(d(1, 0) == doctest::Approx(d(3, 2)));
    // by hand, d = 2 and θ_0 = 1: at distance 1, (a_q a_k + b_q b_k) cos 1 + (b_q a_k − a_q b_k) sin 1
    CHECK(d(0, 1) == doctest::Approx((1 * -1 + 2 * 0.5) * std::cos(1.0) + (2 * -1 - 1 * 0.5) * std::sin(1.0)));
}
