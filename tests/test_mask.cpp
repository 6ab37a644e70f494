// Masks and masked attention: hidden keys get a weight of exactly 0, rows still
// sum to 1, a row with every key hidden becomes zeros (never NaN), and the
// "softmax, zero, renormalise" way gives the same weights as the −inf way.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "common/attention/attention.hpp"
#include "common/attention/mask.hpp"
#include "common/attention/softmax.hpp"
#include "common/lesson/self_check.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/random.hpp"

namespace {
const float minus_infinity = -std::numeric_limits<float>::infinity();

// A random 0/1 mask: each entry is hidden with probability `hidden`.
Matrix random_mask(std::size_t n, std::size_t m, Random& random, double hidden) {
    Matrix mask = Matrix::from_shape({n, m});
    for (auto& x : mask) x = random.uniform() < hidden ? 0.0f : 1.0f;
    return mask;
}

// The first `count` rows of m.
Matrix first_rows(const Matrix& m, std::size_t count) {
    Matrix block = Matrix::from_shape({count, cols(m)});
    for (std::size_t i = 0; i < count; ++i)
        for (std::size_t j = 0; j < cols(m); ++j) block(i, j) = m(i, j);
    return block;
}
}  // namespace

TEST_CASE("the causal mask is the lower triangle, diagonal included") {
    const Matrix expected = {{1, 0, 0, 0}, {1, 1, 0, 0}, {1, 1, 1, 0}, {1, 1, 1, 1}};
    CHECK(causal_mask(4) == expected);
    CHECK(causal_mask(1) == Matrix{{1}});
}

TEST_CASE("apply_mask puts −inf where the mask is 0 and keeps the other scores") {
    const Matrix scores = {{0.5f, -2.0f}, {3.0f, 0.0f}};
    const Matrix masked = apply_mask(scores, Matrix{{1, 0}, {0, 1}});
    CHECK(masked(0, 0) == 0.5f);
    CHECK(masked(0, 1) == minus_infinity);
    CHECK(masked(1, 0) == minus_infinity);
    CHECK(masked(1, 1) == 0.0f);
    CHECK_THROWS_AS(apply_mask(scores, causal_mask(3)), InputError);
}

TEST_CASE("a hand-computed masked row: scores (0, ln 2, ln 3), key 1 hidden → (1/4, 0, 3/4)") {
    // With key 1 hidden the softmax shares 1 between e^0 = 1 and e^ln3 = 3.
    const Matrix Q = {{1.0f}};  // d_k = 1, so scaling changes nothing
    const Matrix K = {{0.0f}, {std::log(2.0f)}, {std::log(3.0f)}};
    const Matrix V = {{4.0f}, {100.0f}, {8.0f}};
    const MaskedAttentionSteps a = masked_attention(Q, K, V, Matrix{{1, 0, 1}});
    CHECK(a.weights(0, 0) == doctest::Approx(0.25));
    CHECK(a.weights(0, 1) == 0.0f);
    CHECK(a.weights(0, 2) == doctest::Approx(0.75));
    CHECK(a.output(0, 0) == doctest::Approx(0.25 * 4.0 + 0.75 * 8.0));  // the hidden 100 plays no part
}

TEST_CASE("masked weights are exactly 0 and every row sums to 1 (random inputs)") {
    Random random(61);
    for (const std::size_t n : {1u, 2u, 5u, 9u, 16u}) {
        CAPTURE(n);
        const Matrix Q = random.normal_matrix(n, 3, 2.0f), K = random.normal_matrix(n, 3, 2.0f),
                     V = random.normal_matrix(n, 2);
        Matrix first_half = Matrix::from_shape({n, n});  // every query sees the first (n + 1) / 2 keys
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) first_half(i, j) = j < (n + 1) / 2 ? 1.0f : 0.0f;
        for (const Matrix& mask : {causal_mask(n), first_half}) {
            const MaskedAttentionSteps a = masked_attention(Q, K, V, mask);
            for (std::size_t i = 0; i < n; ++i) {
                double sum = 0.0;
                for (std::size_t j = 0; j < n; ++j) {
                    if (mask(i, j) == 0.0f) CHECK(a.weights(i, j) == 0.0f);  // exactly, not approximately
                    else CHECK(a.weights(i, j) > 0.0f);
                    sum += a.weights(i, j);
                }
                CHECK(sum == doctest::Approx(1.0).epsilon(1e-6));
            }
        }
    }
}

TEST_CASE("with nothing hidden, masked attention is plain attention") {
    Random random(62);
    const Matrix Q = random.normal_matrix(4, 3), K = random.normal_matrix(5, 3), V = random.normal_matrix(5, 2);
    Matrix all = Matrix::from_shape({4, 5});
    all.fill(1.0f);
    const MaskedAttentionSteps masked = masked_attention(Q, K, V, all);
    const AttentionSteps plain = scaled_dot_product_attention(Q, K, V);
    CHECK(max_abs_difference(masked.weights, plain.weights) == 0.0);
    CHECK(max_abs_difference(masked.output, plain.output) == 0.0);
}

TEST_CASE("a row with every key hidden gives zero weights and a zero output, never NaN") {
    Random random(63);
    const Matrix Q = random.normal_matrix(3, 4), K = random.normal_matrix(3, 4), V = random.normal_matrix(3, 2);
    const Matrix mask = {{0, 0, 0}, {1, 0, 0}, {0, 0, 0}};  // rows 0 and 2 see nothing
    const MaskedAttentionSteps a = masked_attention(Q, K, V, mask);
    for (const std::size_t i : {0u, 2u}) {
        for (std::size_t j = 0; j < 3; ++j) {
            CHECK(a.masked_scores(i, j) == minus_infinity);
            CHECK(a.weights(i, j) == 0.0f);
        }
        for (std::size_t d = 0; d < 2; ++d) CHECK(a.output(i, d) == 0.0f);
    }
    CHECK(a.weights(1, 0) == 1.0f);  // the one visible key takes all the weight
    CHECK(a.output(1, 0) == V(0, 0));
    CHECK(a.output(1, 1) == V(0, 1));
    // the renormalise way agrees: nothing left to divide, zeros
    const Matrix renormalised = softmax_then_renormalise(a.scaled_scores, mask);
    CHECK(max_abs_difference(renormalised, a.weights) == 0.0);
}

TEST_CASE("softmax, zero the hidden weights, renormalise = softmax of the −inf scores (random inputs)") {
    Random random(64);
    for (int trial = 0; trial < 20; ++trial) {
        const std::size_t n = 1 + random.next_u64() % 12, m = 1 + random.next_u64() % 12;
        CAPTURE(n);
        CAPTURE(m);
        const Matrix scores = random.normal_matrix(n, m, 3.0f);
        const Matrix mask = random_mask(n, m, random, 0.4);
        const Matrix by_infinity = softmax_rows(apply_mask(scores, mask));
        const Matrix renormalised = softmax_then_renormalise(scores, mask);
        CHECK(max_abs_difference(by_infinity, renormalised) < 1e-6);
    }
}

TEST_CASE("under the causal mask, the later tokens do not change the earlier outputs") {
    Random random(65);
    const std::size_t n = 7, k = 3;
    const Matrix Q = random.normal_matrix(n, 4), K = random.normal_matrix(n, 4), V = random.normal_matrix(n, 3);
    Matrix K2 = K, V2 = V;  // the same first k tokens, different later ones
    for (std::size_t i = k; i < n; ++i)
        for (std::size_t d = 0; d < 4; ++d) K2(i, d) = 10.0f * random.normal();
    for (std::size_t i = k; i < n; ++i)
        for (std::size_t d = 0; d < 3; ++d) V2(i, d) = 10.0f * random.normal();
    const Matrix before = masked_attention(Q, K, V, causal_mask(n)).output;
    const Matrix after = masked_attention(Q, K2, V2, causal_mask(n)).output;
    CHECK(max_abs_difference(first_rows(before, k), first_rows(after, k)) == 0.0);
    CHECK(max_abs_difference(before, after) > 0.1);  // the later rows do change
}
