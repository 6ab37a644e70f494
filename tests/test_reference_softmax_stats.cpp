// The reference softmax statistics (common/reference/softmax_stats_by_loops) against closed
// forms: the largest scaled score m and the denominator ℓ = Σ exp(s − m) of each query.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "common/reference/softmax_stats_by_loops.hpp"

namespace {
Matrix filled(std::size_t r, std::size_t c, float value) {
    Matrix m = Matrix::from_shape({r, c});
    m.fill(value);
    return m;
}
}  // namespace

TEST_CASE("softmax stats: equal scores give m = the score and ℓ = the number of keys") {
    // q = k = (0.5, 0.5, 0.5, 0.5): q·k = 1, scaled by 1/√4: every score 0.5
    const SoftmaxStatsByLoops r = softmax_stats_by_loops(filled(3, 4, 0.5f), filled(5, 4, 0.5f));
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(r.m[i] == doctest::Approx(0.5));
        CHECK(r.l[i] == doctest::Approx(5.0));
    }
}

TEST_CASE("softmax stats: scaled scores ln 3 and 0 give m = ln 3 and ℓ = 1 + 1/3") {
    // q = (1, 0), k_0 = (√2·ln 3, 0), k_1 = 0, d_k = 2: q·k_0 / √2 = ln 3, q·k_1 = 0
    Matrix Q = Matrix::from_shape({1, 2}), K = Matrix::from_shape({2, 2});
    Q(0, 0) = 1.0f, Q(0, 1) = 0.0f;
    K(0, 0) = float(std::log(3.0) * std::sqrt(2.0)), K(0, 1) = 0.0f, K(1, 0) = 0.0f, K(1, 1) = 0.0f;
    const SoftmaxStatsByLoops r = softmax_stats_by_loops(Q, K);
    CHECK(r.m[0] == doctest::Approx(std::log(3.0)).epsilon(1e-6));
    CHECK(r.l[0] == doctest::Approx(4.0 / 3.0).epsilon(1e-6));
}

TEST_CASE("softmax stats: causal, query i sees i + 1 equal scores; a window of 2 sees at most 2") {
    // q = k = (1, 1): every score 2 / √2 = √2
    const SoftmaxStatsByLoops causal =
        softmax_stats_by_loops(filled(4, 2, 1.0f), filled(4, 2, 1.0f), KeysSeen::causal());
    const SoftmaxStatsByLoops window =
        softmax_stats_by_loops(filled(4, 2, 1.0f), filled(4, 2, 1.0f), KeysSeen::causal_window(2));
    for (std::size_t i = 0; i < 4; ++i) {
        CHECK(causal.m[i] == doctest::Approx(std::sqrt(2.0)));
        CHECK(causal.l[i] == doctest::Approx(double(i + 1)));
        CHECK(window.l[i] == doctest::Approx(i == 0 ? 1.0 : 2.0));
    }
}

TEST_CASE("softmax stats: a query that sees no key keeps m = −∞, ℓ = 0; a finite mask shifts m and ℓ") {
    const float hidden = -std::numeric_limits<float>::infinity();
    Matrix mask = filled(2, 2, 0.0f);
    mask(1, 0) = mask(1, 1) = hidden;   // query 1 sees nothing
    mask(0, 1) = float(std::log(3.0));  // query 0: key 1's score + ln 3
    const SoftmaxStatsByLoops r =
        softmax_stats_by_loops(filled(2, 2, 1.0f), filled(2, 2, 1.0f), KeysSeen::masked(mask));
    CHECK(r.m[0] == doctest::Approx(std::sqrt(2.0) + std::log(3.0)).epsilon(1e-6));  // √2 + ln 3
    CHECK(r.l[0] == doctest::Approx(1.0 + 1.0 / 3.0).epsilon(1e-6));                // exp(−ln 3) + 1
    CHECK(r.m[1] == -std::numeric_limits<double>::infinity());
    CHECK(r.l[1] == 0.0);
}
