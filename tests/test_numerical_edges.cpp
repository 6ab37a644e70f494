// Numerical edges a learner's input can reach: huge and tiny scores, every key
// masked, values at the largest the reader takes. Weights stay finite, rows sum
// to 1 (or are all zeros when every key is hidden), and nothing prints as nan
// or -0.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

#include "common/attention/attention.hpp"
#include "common/attention/mask.hpp"
#include "common/attention/softmax.hpp"
#include "common/display/print.hpp"
#include "common/inputs/labelled_csv.hpp"
#include "common/numbers/input_error.hpp"

TEST_CASE("softmax of ±1e4 and ±1e30 scores: finite weights, each row summing to 1") {
    const Matrix s = {{1e4f, -1e4f, 1e4f}, {-1e30f, -1e30f, -1e30f}, {1e30f, -1e30f, 0.0f},
                      {std::numeric_limits<float>::max(), 0.0f, -std::numeric_limits<float>::max()}};
    const Matrix w = softmax_rows(s);
    REQUIRE(all_finite(w));
    CHECK(w(0, 0) == doctest::Approx(0.5));  // two equal maxima share, the -1e4 gets exp(-2e4) = 0
    CHECK(w(0, 1) == 0.0f);
    for (std::size_t j = 0; j < 3; ++j) CHECK(w(1, j) == doctest::Approx(1.0 / 3.0));  // equal: uniform
    CHECK(w(2, 0) == 1.0f);
    CHECK(w(3, 0) == 1.0f);
    CHECK(w(3, 2) == 0.0f);
}

TEST_CASE("a fully masked row has zero weights and a zero output; the other rows are untouched") {
    const Matrix Q = {{1.0f, 0.0f}, {0.0f, 1.0f}}, K = {{1.0f, 0.0f}, {0.0f, 1.0f}}, V = {{2.0f, 3.0f}, {5.0f, 7.0f}};
    const Matrix mask = {{0.0f, 0.0f}, {1.0f, 1.0f}};  // row 0 sees no key
    const Matrix w = softmax_rows(apply_mask(dot_scores(Q, K), mask));
    CHECK(w(0, 0) == 0.0f);
    CHECK(w(0, 1) == 0.0f);
    CHECK(w(1, 0) + w(1, 1) == doctest::Approx(1.0));
    CHECK(w(1, 1) == doctest::Approx(std::exp(1.0) / (1.0 + std::exp(1.0))));
    const MaskedAttentionSteps steps = masked_attention(Q, K, V, mask);
    CHECK(steps.output(0, 0) == 0.0f);
    CHECK(steps.output(0, 1) == 0.0f);
    const double w11 = 1.0 / (1.0 + std::exp(-1.0 / std::sqrt(2.0)));  // scaled by √d_k = √2
    CHECK(steps.output(1, 1) == doctest::Approx((1.0 - w11) * 3.0 + w11 * 7.0));
}

TEST_CASE("attention on values of ±1e6, the largest the reader takes, stays finite") {
    const LabelledMatrix X = parse_labelled_csv("token,a,b\nx,1e6,-1e6\ny,-1e6,1e6\nz,1e6,1e6\n", "big.csv");
    const AttentionSteps steps = scaled_dot_product_attention(X.values, X.values, X.values);
    CHECK(all_finite(steps.scores));
    CHECK(all_finite(steps.weights));
    CHECK(all_finite(steps.output));
    CHECK(steps.weights(0, 0) == doctest::Approx(1.0));  // 2e12 / √2 against 0: all on itself
}

TEST_CASE("values beyond ±1e6 are refused, naming file, line and column") {
    try {
        parse_labelled_csv("token,a,b\ncat,1,2\ndog,3,-1e20\n", "f.csv");
        FAIL("expected an InputError");
    } catch (const InputError& e) {
        CHECK(std::string(e.what()).rfind("f.csv:3: column 3 ('b'): '-1e20' is too large", 0) == 0);
    }
    CHECK(parse_labelled_csv("token,a\ncat,-1e6\n", "f.csv").values(0, 0) == -1e6f);
}

TEST_CASE("tiny negatives print as a plain zero at every number of decimals, never -0") {
    for (int decimals = 0; decimals <= 6; ++decimals) {
        const std::string zero = format_number(-1e-9f, decimals);
        CHECK(zero.find('-') == std::string::npos);
        CHECK(format_number(-0.0f, decimals) == zero);
    }
    CHECK(format_number(-0.0004f, 3) == "0.000");
    CHECK(format_number(-0.0006f, 3) == "-0.001");
}
