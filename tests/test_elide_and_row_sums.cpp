#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "common/display/elide.hpp"
#include "common/lesson/self_check.hpp"

TEST_CASE("a short list is kept whole, a long one keeps its first and last five") {
    CHECK(elided_indices(3) == std::vector<std::size_t>{0, 1, 2});
    CHECK(elided_indices(16).size() == 16);
    CHECK(elided_indices(17) == std::vector<std::size_t>{0, 1, 2, 3, 4, elided, 12, 13, 14, 15, 16});
    CHECK(elided_indices(0).empty());
}

TEST_CASE("join_elided puts … where tokens were left out") {
    std::vector<std::string> tokens;
    for (int i = 0; i < 300; ++i) tokens.push_back("t" + std::to_string(i));
    CHECK(join_elided(tokens, " ") == "t0 t1 t2 t3 t4 … t295 t296 t297 t298 t299");
    CHECK(join_elided({"the", "cat", "sat"}, ", ") == "the, cat, sat");
}

TEST_CASE("row sums: the error of each row, and a tolerance that grows with the row") {
    const Matrix weights = {{0.25f, 0.75f}, {0.5f, 0.4f}};  // the second row sums to 0.9
    CHECK(worst_row_sum_error(weights) == doctest::Approx(0.1).epsilon(1e-6));
    const Matrix broken = {{0.5f, std::numeric_limits<float>::quiet_NaN()}, {0.5f, 0.5f}};
    CHECK(std::isinf(worst_row_sum_error(broken)));  // a later good row does not hide it
    CHECK(row_sum_tolerance(4) == 1e-6);
    CHECK(row_sum_tolerance(300) == doctest::Approx(300 * 1.1920929e-7));
}

TEST_CASE("scaled_tolerance grows with the largest finite value, never below the tolerance") {
    CHECK(scaled_tolerance(1e-5, Matrix{{0.5f, -0.2f}}) == doctest::Approx(1e-5));
    CHECK(scaled_tolerance(1e-5, Matrix{{3e6f, -1e6f}}) == doctest::Approx(30.0));
    CHECK(scaled_tolerance(1e-5, Matrix{{-std::numeric_limits<float>::infinity(), 2.0f}}) == doctest::Approx(2e-5));
}

TEST_CASE("a skipped claim counts neither as passed nor as failed") {
    SelfChecks checks;
    checks.skip("the heads attend differently", "one token");
    CHECK(checks.passed() == 0);
    CHECK(checks.failed() == 0);
    CHECK(checks.that("true is true", true));
    CHECK(checks.passed() == 1);
}
