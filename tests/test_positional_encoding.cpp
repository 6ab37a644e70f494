// The sinusoidal positional encoding against entries computed by hand, and the
// property the paper chose it for: PE(pos + k) is a linear function of PE(pos).
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <vector>

#include "common/attention/positional_encoding.hpp"
#include "common/numbers/matmul.hpp"

TEST_CASE("PE: entries computed by hand (d_model = 10)") {
    const Matrix PE = sinusoidal_encoding(8, 10);
    REQUIRE(rows(PE) == 8);
    REQUIRE(cols(PE) == 10);
    // Position 0: every sine is 0 and every cosine 1.
    for (std::size_t c = 0; c < 10; ++c) CHECK(PE(0, c) == doctest::Approx(c % 2 == 0 ? 0.0 : 1.0));
    CHECK(PE(1, 0) == doctest::Approx(0.841471).epsilon(1e-6));  // sin 1
    CHECK(PE(1, 1) == doctest::Approx(0.540302).epsilon(1e-6));  // cos 1
    // PE(2, 2) = sin(2 / 10000^(2/10)) = sin(2 / 6.309573) = sin(0.316979)
    CHECK(PE(2, 2) == doctest::Approx(0.311697).epsilon(1e-5));
    // PE(3, 5) = cos(3 / 10000^(4/10)) = cos(3 / 39.81072)
    CHECK(PE(3, 5) == doctest::Approx(0.997162).epsilon(1e-6));
    // PE(7, 8) = sin(7 / 10000^(8/10)) = sin(7 / 1584.893)
    CHECK(PE(7, 8) == doctest::Approx(0.00441669).epsilon(1e-5));
}

TEST_CASE("PE: the frequencies run from 1 down to almost 1/10000") {
    CHECK(pe_frequency(0, 10) == doctest::Approx(1.0));
    CHECK(pe_frequency(1, 10) == doctest::Approx(1.0 / 6.309573).epsilon(1e-6));
    CHECK(pe_frequency(255, 512) == doctest::Approx(std::pow(10000.0, -510.0 / 512.0)));
}

TEST_CASE("PE: an odd d_model ends with a lone sine column") {
    const Matrix PE = sinusoidal_encoding(4, 5);
    REQUIRE(cols(PE) == 5);
    // Column 4 is the sine of pair 2: sin(3 / 10000^(4/5)).
    CHECK(PE(3, 4) == doctest::Approx(0.00189287).epsilon(1e-5));
    CHECK(PE(0, 4) == doctest::Approx(0.0));
    // The first four columns are those of pairs 0 and 1 at d_model = 5.
    CHECK(PE(2, 3) == doctest::Approx(std::cos(2.0 / std::pow(10000.0, 2.0 / 5.0))));
}

TEST_CASE("PE: PE(pos + k) = PE(pos) · M_k for every pos, with one M_k") {
    for (const std::size_t d_model : {2u, 10u, 16u, 64u})
        for (const std::size_t k : {0u, 1u, 3u, 17u}) {
            CAPTURE(d_model);
            CAPTURE(k);
            const Matrix PE = sinusoidal_encoding(60 + k, d_model);
            const Matrix M = pe_shift_matrix(k, d_model);
            for (std::size_t pos = 0; pos < 60; ++pos)
                for (std::size_t c = 0; c < d_model; ++c) {
                    double moved = 0.0;  // (PE(pos) · M)_c as a loop
                    for (std::size_t r = 0; r < d_model; ++r) moved += double(PE(pos, r)) * M(r, c);
                    CHECK(moved == doctest::Approx(PE(pos + k, c)).epsilon(1e-4).scale(1.0));
                }
        }
}

TEST_CASE("PE: M_k is a rotation: M_k · M_kᵀ = I, M_0 = I, M_a · M_b = M_(a+b)") {
    const Matrix M3 = pe_shift_matrix(3, 10);
    const Matrix I = matmul_transposed(M3, M3);
    for (std::size_t r = 0; r < 10; ++r)
        for (std::size_t c = 0; c < 10; ++c) CHECK(I(r, c) == doctest::Approx(r == c ? 1.0 : 0.0).scale(1.0));
    const Matrix M0 = pe_shift_matrix(0, 10);
    for (std::size_t r = 0; r < 10; ++r)
        for (std::size_t c = 0; c < 10; ++c) CHECK(M0(r, c) == (r == c ? 1.0f : 0.0f));
    const Matrix M5 = matmul(pe_shift_matrix(2, 10), M3);
    const Matrix expected = pe_shift_matrix(5, 10);
    for (std::size_t r = 0; r < 10; ++r)
        for (std::size_t c = 0; c < 10; ++c) CHECK(M5(r, c) == doctest::Approx(expected(r, c)).scale(1.0));
    // The block of pair 0 for k = 3, row-vector form: [[cos 3, −sin 3], [sin 3, cos 3]].
    CHECK(M3(0, 0) == doctest::Approx(std::cos(3.0)));
    CHECK(M3(0, 1) == doctest::Approx(-std::sin(3.0)));
    CHECK(M3(1, 0) == doctest::Approx(std::sin(3.0)));
    CHECK(M3(0, 2) == 0.0f);
}

TEST_CASE("PE: an odd d_model's lone sine has a zero row and column in M_k") {
    const Matrix M = pe_shift_matrix(2, 5);
    for (std::size_t c = 0; c < 5; ++c) {
        CHECK(M(4, c) == 0.0f);
        CHECK(M(c, 4) == 0.0f);
    }
    CHECK(M(2, 2) == doctest::Approx(std::cos(2.0 / std::pow(10000.0, 2.0 / 5.0))));
}

TEST_CASE("PE: PE(pos) · PE(pos + k) = Σ_i cos(ω_i k), whatever pos") {
    const std::size_t d_model = 16;
    const Matrix PE = sinusoidal_encoding(80, d_model);
    for (std::size_t k = 0; k < 10; ++k) {
        double expected = 0.0;
        for (std::size_t i = 0; i < d_model / 2; ++i) expected += std::cos(double(k) * pe_frequency(i, d_model));
        for (std::size_t pos = 0; pos + k < 80; pos += 7) {
            double dot = 0.0;
            for (std::size_t c = 0; c < d_model; ++c) dot += double(PE(pos, c)) * PE(pos + k, c);
            CHECK(dot == doctest::Approx(expected).epsilon(1e-5).scale(1.0));
        }
    }
}

// Chapter 09's rotation step: with row vectors, PE(pos + k) = PE(pos) · M_k, and the
// 2×2 block of M_k for pair i is exactly the textbook rotation matrix
// R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]], θ = ω_i k (not its transpose). Multiplied
// from the right it turns the point (sin, cos) clockwise: R(θ)ᵀ = R(−θ) is the
// column-vector form, PE(pos + k)ᵀ = M_kᵀ · PE(pos)ᵀ.
TEST_CASE("PE: M_k's blocks are the textbook rotation R(ω_i k), applied from the right") {
    const std::size_t d_model = 8, k = 3;
    const Matrix M = pe_shift_matrix(k, d_model);
    for (std::size_t i = 0; i < d_model / 2; ++i) {
        const double theta = double(k) * pe_frequency(i, d_model);
        const std::size_t a = 2 * i, b = a + 1;
        CHECK(M(a, a) == doctest::Approx(std::cos(theta)));   // R(θ) row 0: cos θ, −sin θ
        CHECK(M(a, b) == doctest::Approx(-std::sin(theta)));
        CHECK(M(b, a) == doctest::Approx(std::sin(theta)));   // R(θ) row 1: sin θ, cos θ
        CHECK(M(b, b) == doctest::Approx(std::cos(theta)));
        // (sin x, cos x) · R(θ) = (sin(x + θ), cos(x + θ)): the row-vector product
        const double x = 0.7;
        CHECK(std::sin(x) * M(a, a) + std::cos(x) * M(b, a) == doctest::Approx(std::sin(x + theta)));
        CHECK(std::sin(x) * M(a, b) + std::cos(x) * M(b, b) == doctest::Approx(std::cos(x + theta)));
        // the column-vector form R(θ)ᵀ · (sin x, cos x)ᵀ does the same; R(θ) · (…)ᵀ would not
        CHECK(M(a, a) * std::sin(x) + M(b, a) * std::cos(x) == doctest::Approx(std::sin(x + theta)));
        if (std::abs(std::sin(theta)) > 1e-3)
            CHECK(M(a, a) * std::sin(x) + M(a, b) * std::cos(x) != doctest::Approx(std::sin(x + theta)));
    }
}

// Chapter 09's PE_dots: PE(pos) · PE(pos + k) summed in double from float PE, then
// stored as float next to Σ_i cos(ω_i k), also stored as float. Each product is off by
// at most FLT_EPSILON/2 times its size, the sizes add up to at most d_pe/2, and each
// stored float rounds by FLT_EPSILON/2 of up to d_pe/2: at most d_pe · FLT_EPSILON apart,
// for every --d-pe the chapter allows (2 … 512, even). A fixed 1e-5 fails from 282 on.
TEST_CASE("PE: chapter 09's dot products stay within max(1e-5, d_pe · FLT_EPSILON) for every --d-pe") {
    const std::vector<std::size_t> starts = {0, 1, 2, 5, 10, 20};
    const std::size_t ks = 8;
    std::size_t over_fixed_tolerance = 0;
    for (std::size_t d_pe = 2; d_pe <= 512; d_pe += 2) {
        const Matrix PE = sinusoidal_encoding(starts.back() + ks, d_pe);
        double worst = 0.0;
        for (std::size_t k = 0; k < ks; ++k) {
            double closed = 0.0;
            for (std::size_t i = 0; i < d_pe / 2; ++i) closed += std::cos(double(k) * pe_frequency(i, d_pe));
            for (const std::size_t pos : starts) {
                double dot = 0.0;
                for (std::size_t c = 0; c < d_pe; ++c) dot += double(PE(pos, c)) * PE(pos + k, c);
                worst = std::max(worst, double(std::abs(static_cast<float>(dot) - static_cast<float>(closed))));
            }
        }
        CAPTURE(d_pe);
        CHECK(worst <= std::max(1e-5, double(d_pe) * FLT_EPSILON));
        over_fixed_tolerance += worst > 1e-5;
    }
    CHECK(over_fixed_tolerance > 0);  // the old fixed tolerance was too tight somewhere
}
