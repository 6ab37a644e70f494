// Entropy and largest weight of attention rows, against values computed by hand.
#include <doctest/doctest.h>

#include <cmath>

#include "common/attention/softmax.hpp"
#include "common/attention/weight_entropy.hpp"

TEST_CASE("entropy: 0 for a one-hot row, ln m for a uniform row, ln 2 for two halves") {
    const Matrix w = {{0.0f, 1.0f, 0.0f, 0.0f}, {0.25f, 0.25f, 0.25f, 0.25f}, {0.5f, 0.0f, 0.5f, 0.0f}};
    CHECK(row_entropy(w, 0) == doctest::Approx(0.0));
    CHECK(row_entropy(w, 1) == doctest::Approx(std::log(4.0)).epsilon(1e-7));
    CHECK(row_entropy(w, 2) == doctest::Approx(std::log(2.0)).epsilon(1e-7));
    CHECK(mean_row_entropy(w) == doctest::Approx((std::log(4.0) + std::log(2.0)) / 3.0).epsilon(1e-7));
}

TEST_CASE("entropy of an uneven row: −(0.7 ln 0.7 + 0.2 ln 0.2 + 0.1 ln 0.1) = 0.8018") {
    const Matrix w = {{0.7f, 0.2f, 0.1f}};
    CHECK(row_entropy(w, 0) == doctest::Approx(0.801819).epsilon(1e-5));
}

TEST_CASE("largest weight of each row and its mean") {
    const Matrix w = {{0.1f, 0.6f, 0.3f}, {0.2f, 0.2f, 0.6f}, {0.9f, 0.05f, 0.05f}};
    CHECK(row_largest(w, 0) == 0.6f);
    CHECK(row_largest(w, 1) == 0.6f);
    CHECK(row_largest(w, 2) == 0.9f);
    CHECK(mean_row_largest(w) == doctest::Approx(0.7).epsilon(1e-6));
}

TEST_CASE("a lower temperature never raises the entropy of a softmax row") {
    const Matrix s = {{0.3f, -1.2f, 2.0f, 0.7f, 0.0f}};
    double previous = std::log(5.0) + 1e-9;  // the most a row of 5 can have
    for (const float t : {100.0f, 10.0f, 2.0f, 1.0f, 0.5f, 0.1f, 0.01f}) {
        const Matrix scaled = s / t;
        const double h = row_entropy(softmax_rows(scaled), 0);
        CHECK(h <= previous);
        previous = h;
    }
    CHECK(previous < 1e-6);  // T = 0.01: all weight on the 2.0
}
