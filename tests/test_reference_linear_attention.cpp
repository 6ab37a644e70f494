// The reference causal linear attention (common/reference/) against cases worked by hand.
#include <doctest/doctest.h>

#include "common/reference/linear_attention_by_loops.hpp"
#include "tests/matrix_literal.hpp"

TEST_CASE("reference linear attention: the first token returns its own value") {
    const Matrix out = linear_attention_by_loops(matrix(1, 2, {0.3f, 2.0f}), matrix(1, 2, {1.5f, 0.1f}),
                                                 matrix(1, 3, {4.0f, -1.0f, 0.5f}));
    CHECK(out(0, 0) == doctest::Approx(4.0));
    CHECK(out(0, 1) == doctest::Approx(-1.0));
    CHECK(out(0, 2) == doctest::Approx(0.5));
}

TEST_CASE("reference linear attention: two tokens worked by hand") {
    // φq_1 = (1, 1), φk_0 = (1, 0), φk_1 = (1, 2): scores 1 and 3, so out_1 = (1·v_0 + 3·v_1) / 4
    const Matrix phi_Q = matrix(2, 2, {1.0f, 0.0f, 1.0f, 1.0f}), phi_K = matrix(2, 2, {1.0f, 0.0f, 1.0f, 2.0f});
    const Matrix V = matrix(2, 1, {2.0f, 6.0f});
    const Matrix out = linear_attention_by_loops(phi_Q, phi_K, V);
    CHECK(out(0, 0) == doctest::Approx(2.0));
    CHECK(out(1, 0) == doctest::Approx((2.0 + 3 * 6.0) / 4));
    const Matrix raw = linear_attention_by_loops(phi_Q, phi_K, V, false);  // no division: Σ score · v
    CHECK(raw(0, 0) == doctest::Approx(2.0));
    CHECK(raw(1, 0) == doctest::Approx(2.0 + 3 * 6.0));
}

TEST_CASE("reference linear attention: equal keys average the values seen so far") {
    const Matrix phi_Q = matrix(3, 2, {0.5f, 1.0f, 2.0f, 0.1f, 1.0f, 1.0f});
    const Matrix phi_K = matrix(3, 2, {1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f});
    const Matrix out = linear_attention_by_loops(phi_Q, phi_K, matrix(3, 1, {3.0f, 5.0f, 10.0f}));
    CHECK(out(1, 0) == doctest::Approx(4.0));
    CHECK(out(2, 0) == doctest::Approx(6.0));
}

TEST_CASE("reference linear attention: a normaliser of 0 gives an output of 0, not NaN") {
    // relu can zero every product: φq_0 = (1, 0) and φk_0 = (0, 1) share no positive entry
    const Matrix out = linear_attention_by_loops(matrix(1, 2, {1.0f, 0.0f}), matrix(1, 2, {0.0f, 1.0f}),
                                                 matrix(1, 1, {7.0f}));
    CHECK(out(0, 0) == 0.0f);
}
