// The reference delta rule (common/reference/) against closed forms and cases worked by hand.
#include <doctest/doctest.h>

#include <cmath>

#include "common/reference/delta_rule_by_loops.hpp"
#include "tests/matrix_literal.hpp"

TEST_CASE("reference delta rule: one key written twice with β = 1/2, worked by hand") {
    // k = (1, 0), v = 2: S_1 = ½·k·(2 − 0) = (1, 0)ᵀ; S_2 = S_1 + ½·k·(2 − 1) = (1.5, 0)ᵀ
    const Matrix K = matrix(2, 2, {1.0f, 0.0f, 1.0f, 0.0f}), V = matrix(2, 1, {2.0f, 2.0f});
    const DeltaRuleByLoops r = delta_rule_by_loops(K, K, V, {0.5, 0.5});
    CHECK(r.output(0, 0) == doctest::Approx(1.0));
    CHECK(r.output(1, 0) == doctest::Approx(1.5));
    CHECK(r.state(0, 0) == doctest::Approx(1.5));
    CHECK(r.state(1, 0) == 0.0f);
    // gated, α = ½: S_2 = ½·S_1 + ½·k·(2 − ½·1) = 0.5 + 0.75
    const DeltaRuleByLoops g = delta_rule_by_loops(K, K, V, {0.5, 0.5}, {0.5, 0.5});
    CHECK(g.output(1, 0) == doctest::Approx(1.25));
}

TEST_CASE("reference delta rule: β = 1 and a unit key read back the value just written") {
    const float s = float(1 / std::sqrt(2.0));
    const Matrix K = matrix(3, 2, {1.0f, 0.0f, s, s, 0.0f, 1.0f}), V = matrix(3, 2, {1, 2, 3, 4, 5, 6});
    const DeltaRuleByLoops r = delta_rule_by_loops(K, K, V, {1.0, 1.0, 1.0});  // q_t = k_t
    for (std::size_t t = 0; t < 3; ++t)
        for (std::size_t e = 0; e < 2; ++e) CHECK(r.output(t, e) == doctest::Approx(V(t, e)));
}

TEST_CASE("reference delta rule: orthogonal unit keys with β = 1 give S = Σ k vᵀ, as linear attention") {
    const Matrix K = matrix(2, 2, {0.6f, 0.8f, -0.8f, 0.6f}), V = matrix(2, 1, {3.0f, -1.0f});
    const DeltaRuleByLoops r = delta_rule_by_loops(K, K, V, {1.0, 1.0});
    CHECK(r.state(0, 0) == doctest::Approx(0.6 * 3 + 0.8));
    CHECK(r.state(1, 0) == doctest::Approx(0.8 * 3 - 0.6));
}

TEST_CASE("reference delta rule: β = 0 writes nothing, α = 0 forgets all") {
    const Matrix K = matrix(2, 1, {1.0f, 1.0f}), V = matrix(2, 1, {4.0f, 9.0f});
    CHECK(delta_rule_by_loops(K, K, V, {0.0, 0.0}).state(0, 0) == 0.0f);
    // α_2 = 0: S_2 = 0 + 1·k·(9 − 0): only the last value is left
    CHECK(delta_rule_by_loops(K, K, V, {1.0, 1.0}, {1.0, 0.0}).state(0, 0) == doctest::Approx(9.0));
}
