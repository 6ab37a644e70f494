// The xtensor 0.24 traps of docs/xtensor_traps.md, measured: each test pins
// what the library does on this version, next to the form that is right.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xview.hpp>

#include "common/attention/softmax.hpp"
#include "common/numbers/matrix.hpp"

namespace {

float row_sum(const Matrix& m, std::size_t i) {
    float s = 0.0f;
    for (std::size_t j = 0; j < cols(m); ++j) s += m(i, j);
    return s;
}

// A (2 × 3) matrix 1 2 3 / 4 5 6 placed at the start of a longer buffer. The
// lazy reducers below read past the end of the matrix; in a Matrix those reads
// would leave its memory (AddressSanitizer reports a heap-buffer-overflow),
// here they land in padding this test owns, so the test itself is well defined.
// Row 0 only reads inside the matrix, so its numbers are the same on every run.
struct Padded {
    std::vector<float> buffer = std::vector<float>(64, 1000.0f);
    Padded() {
        for (std::size_t k = 0; k < 6; ++k) buffer[k] = float(k + 1);
    }
    auto matrix() { return xt::adapt(buffer.data(), 6, xt::no_ownership(), std::array<std::size_t, 2>{2, 3}); }
};

}  // namespace

TEST_CASE("trap 1: e / xt::sum(e, {1}, xt::keep_dims) is wrong when the reducer stays lazy") {
    Padded padded;
    auto e = padded.matrix();
    // Wrong: the reducer is broadcast along the axis it reduced, and at column j it
    // sums the three numbers that start at (0, j) in memory: 1+2+3, 2+3+4, 3+4+5.
    const Matrix lazy = e / xt::sum(e, {1}, xt::keep_dims);
    CHECK(lazy(0, 0) == doctest::Approx(1.0 / 6.0));
    CHECK(lazy(0, 1) == doctest::Approx(2.0 / 9.0));
    CHECK(lazy(0, 2) == doctest::Approx(3.0 / 12.0));
    CHECK(row_sum(lazy, 0) == doctest::Approx(23.0 / 36.0));  // 0.639, not 1

    // Right: evaluate the sums into a container first, or ask for immediate evaluation.
    const Matrix sums = xt::sum(e, {1}, xt::keep_dims);  // (2 × 1): 6 and 15
    CHECK(sums(0, 0) == 6.0f);
    CHECK(sums(1, 0) == 15.0f);
    const Matrix stored = e / sums;
    const Matrix immediate = e / xt::sum(e, {1}, xt::keep_dims | xt::evaluation_strategy::immediate);
    for (const Matrix* right : {&stored, &immediate}) {
        CHECK((*right)(0, 1) == doctest::Approx(2.0 / 6.0));
        CHECK((*right)(1, 2) == doctest::Approx(6.0 / 15.0));
        CHECK(row_sum(*right, 0) == doctest::Approx(1.0));
        CHECK(row_sum(*right, 1) == doctest::Approx(1.0));
    }
    // Also right: reduce without keep_dims and put the axis back with a view.
    const Matrix newaxis = e / xt::view(xt::sum(e, {1}), xt::all(), xt::newaxis());
    CHECK(newaxis(1, 2) == doctest::Approx(6.0 / 15.0));
}

TEST_CASE("trap 1b: a lazy xt::amax with keep_dims gives rows that sum to 1 and are still wrong") {
    Padded padded;
    auto s = padded.matrix();
    // The stable softmax written with a lazy row maximum. At (0, j) the "maximum" is
    // that of 3 numbers starting at (0, j): 3, 4, 5, so row 0 is shifted to −2, −2, −2.
    const Matrix shifted = s - xt::amax(s, {1}, xt::keep_dims);
    CHECK(shifted(0, 0) == -2.0f);
    CHECK(shifted(0, 1) == -2.0f);
    CHECK(shifted(0, 2) == -2.0f);
    const Matrix e = xt::exp(shifted);
    const Matrix sums = xt::sum(e, {1}, xt::keep_dims);  // stored: right sums of wrong numbers
    const Matrix wrong = e / sums;
    CHECK(row_sum(wrong, 0) == doctest::Approx(1.0));     // the row-sum test passes…
    CHECK(wrong(0, 2) == doctest::Approx(1.0 / 3.0));     // …but 1 2 3 got equal weights
    const Matrix right = softmax_rows(Matrix{{1.0f, 2.0f, 3.0f}});
    CHECK(right(0, 2) == doctest::Approx(0.665241));      // e² / (1 + e + e²)
    CHECK(std::abs(wrong(0, 2) - right(0, 2)) > 0.3);
}

TEST_CASE("trap 6: auto holds an expression, not a value") {
    Matrix a = {{1.0f, 2.0f}, {3.0f, 4.0f}};
    auto doubled = a * 2.0f;            // an expression that refers to a
    const Matrix snapshot = a * 2.0f;   // a value
    a(0, 0) = 10.0f;
    CHECK(doubled(0, 0) == 20.0f);      // computed now, from the new a
    CHECK(snapshot(0, 0) == 2.0f);      // computed when it was assigned
}
