// Weighted sums spelled out: the terms come largest first, the small ones are
// grouped, and the sum of the terms is the vector the row of weights makes.
#include <doctest/doctest.h>

#include "common/lesson/combination.hpp"

TEST_CASE("a row's terms come largest first, equal weights in row order") {
    const Matrix weights = {{0.1f, 0.5f, 0.1f, 0.3f}};
    const Combination c = combination_of_row(weights, 0, 10);
    REQUIRE(c.terms.size() == 4);
    CHECK(c.terms[0].index == 1);
    CHECK(c.terms[1].index == 3);
    CHECK(c.terms[2].index == 0);  // 0.1 at index 0 before 0.1 at index 2
    CHECK(c.terms[3].index == 2);
    CHECK(c.terms[0].weight == doctest::Approx(0.5));
    CHECK(c.shown == 4);
}

TEST_CASE("at most `most` terms are written out, the rest grouped with their count and total") {
    const Matrix weights = {{0.05f, 0.62f, 0.21f, 0.02f, 0.10f}};
    const Labels tokens = {"the", "cat", "mat", "on", "sat"};
    const Combination c = combination_of_row(weights, 0, 2);
    CHECK(c.shown == 2);
    // 0.05 + 0.02 + 0.10 = 0.17
    CHECK(format_combination(c, tokens) == "0.62·cat + 0.21·mat + … (3 more, total 0.17)");
}

TEST_CASE("terms below `smallest` are grouped, but one term is always written") {
    const Matrix weights = {{0.3f, 0.3f, 0.4f}, {0.34f, 0.33f, 0.33f}};
    const Labels tokens = {"a", "b", "c"};
    CHECK(format_combination(combination_of_row(weights, 0, 3, 0.35f), tokens) ==
          "0.40·c + … (2 more, total 0.60)");
    CHECK(format_combination(combination_of_row(weights, 1, 3, 0.9f), tokens, 3) ==
          "0.340·a + … (2 more, total 0.660)");
    CHECK(format_combination(combination_of_row(weights, 1, 3), tokens, 1) == "0.3·a + 0.3·b + 0.3·c");
}

TEST_CASE("the combination of a row of weights is that row of weights · V") {
    const Matrix weights = {{0.2f, 0.5f, 0.3f}, {1.0f, 0.0f, 0.0f}};
    const Matrix V = {{1.0f, 10.0f}, {2.0f, 20.0f}, {3.0f, 30.0f}};
    // row 0: 0.2·(1, 10) + 0.5·(2, 20) + 0.3·(3, 30) = (2.1, 21)
    const Matrix first = combine_rows(combination_of_row(weights, 0, 1), V);  // grouped terms count too
    REQUIRE(first.shape(1) == 2);
    CHECK(first(0, 0) == doctest::Approx(2.1));
    CHECK(first(0, 1) == doctest::Approx(21.0));
    // a one-hot row picks exactly one row of V: the hard lookup
    const Matrix second = combine_rows(combination_of_row(weights, 1), V);
    CHECK(second(0, 0) == 1.0f);
    CHECK(second(0, 1) == 10.0f);
}
