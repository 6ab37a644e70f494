// softmax_rows and scaled dot-product attention against values computed by
// hand, by a closed form and by a loop.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "common/attention/attention.hpp"
#include "common/attention/softmax.hpp"
#include "common/numbers/random.hpp"

namespace {
float row_sum(const Matrix& m, std::size_t i) {
    float s = 0.0f;
    for (std::size_t j = 0; j < cols(m); ++j) s += m(i, j);
    return s;
}

// The textbook formula with no shift: finite only for small scores.
Matrix naive_softmax(const Matrix& s) {
    Matrix w = Matrix::from_shape(s.shape());
    for (std::size_t i = 0; i < rows(s); ++i) {
        double z = 0.0;
        for (std::size_t j = 0; j < cols(s); ++j) z += std::exp(double(s(i, j)));
        for (std::size_t j = 0; j < cols(s); ++j) w(i, j) = float(std::exp(double(s(i, j))) / z);
    }
    return w;
}
}  // namespace

TEST_CASE("softmax of a hand-computed row") {
    // softmax(0, ln 2, ln 3) = (1, 2, 3) / 6
    const Matrix s = {{0.0f, std::log(2.0f), std::log(3.0f)}};
    const Matrix w = softmax_rows(s);
    CHECK(w(0, 0) == doctest::Approx(1.0 / 6.0));
    CHECK(w(0, 1) == doctest::Approx(2.0 / 6.0));
    CHECK(w(0, 2) == doctest::Approx(3.0 / 6.0));
}

TEST_CASE("the classic two-key example: 112 and 96 scaled by √64 give 0.88 and 0.12") {
    const Matrix s = {{112.0f / 8.0f, 96.0f / 8.0f}};
    const Matrix w = softmax_rows(s);
    CHECK(w(0, 0) == doctest::Approx(1.0 / (1.0 + std::exp(-2.0))).epsilon(1e-6));  // 0.8808
    CHECK(w(0, 1) == doctest::Approx(0.1192).epsilon(1e-3));
}

TEST_CASE("rows sum to 1 for large and negative scores, with no inf or NaN") {
    const Matrix s = {{1e4f, -1e4f, 0.0f}, {-500.0f, -501.0f, -502.0f}, {1e30f, 1e30f, -1e30f}, {88.0f, 89.0f, 90.0f}};
    const Matrix w = softmax_rows(s);
    for (std::size_t i = 0; i < rows(w); ++i) {
        CHECK(row_sum(w, i) == doctest::Approx(1.0).epsilon(1e-6));
        for (std::size_t j = 0; j < cols(w); ++j) {
            CHECK(std::isfinite(w(i, j)));
            CHECK(w(i, j) >= 0.0f);
        }
    }
    CHECK(w(0, 0) == doctest::Approx(1.0));
    CHECK(w(2, 0) == doctest::Approx(0.5));  // two equal maxima share the weight
    // -500, -501, -502: the same weights as 0, -1, -2
    const double z = 1.0 + std::exp(-1.0) + std::exp(-2.0);
    CHECK(w(1, 0) == doctest::Approx(1.0 / z));
    CHECK(w(1, 2) == doctest::Approx(std::exp(-2.0) / z));
}

TEST_CASE("the stable softmax equals the naive one where the naive one is finite") {
    Random random(7);
    const Matrix s = random.normal_matrix(6, 9, 3.0f);
    const Matrix stable = softmax_rows(s);
    const Matrix naive = naive_softmax(s);
    for (std::size_t k = 0; k < s.size(); ++k) CHECK(stable.flat(k) == doctest::Approx(naive.flat(k)).epsilon(1e-5));
}

TEST_CASE("a row with every key masked (all -inf) becomes zeros, never NaN") {
    const float ninf = -std::numeric_limits<float>::infinity();
    const Matrix s = {{ninf, ninf}, {0.0f, ninf}};
    const Matrix w = softmax_rows(s);
    CHECK(w(0, 0) == 0.0f);
    CHECK(w(0, 1) == 0.0f);
    CHECK(w(1, 0) == 1.0f);
    CHECK(w(1, 1) == 0.0f);
}

TEST_CASE("scaled dot-product attention equals the loop Σ_j softmax_j(q·k_j/√d_k) v_j") {
    Random random(42);
    const std::size_t n = 5, m = 7, d_k = 4, d_v = 3;
    const Matrix Q = random.normal_matrix(n, d_k), K = random.normal_matrix(m, d_k), V = random.normal_matrix(m, d_v);
    const AttentionSteps a = scaled_dot_product_attention(Q, K, V);
    REQUIRE(a.output.shape(0) == n);
    REQUIRE(a.output.shape(1) == d_v);
    for (std::size_t i = 0; i < n; ++i) {
        // the loop form, in double
        std::vector<double> score(m);
        double top = -1e300, z = 0.0;
        for (std::size_t j = 0; j < m; ++j) {
            double dot = 0.0;
            for (std::size_t d = 0; d < d_k; ++d) dot += double(Q(i, d)) * K(j, d);
            score[j] = dot / std::sqrt(double(d_k));
            top = std::max(top, score[j]);
            CHECK(a.scores(i, j) == doctest::Approx(dot).epsilon(1e-5));
        }
        for (std::size_t j = 0; j < m; ++j) z += std::exp(score[j] - top);
        for (std::size_t c = 0; c < d_v; ++c) {
            double out = 0.0;
            for (std::size_t j = 0; j < m; ++j) out += std::exp(score[j] - top) / z * V(j, c);
            CHECK(a.output(i, c) == doctest::Approx(out).epsilon(1e-5));
        }
        CHECK(row_sum(a.weights, i) == doctest::Approx(1.0).epsilon(1e-6));
    }
}
