// The reference attention (common/reference/) against closed forms: the reference the
// chapters' self-checks trust is checked here, never against itself.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include <xtensor/xview.hpp>

#include "common/reference/attention_by_loops.hpp"

namespace {
Matrix filled(std::size_t r, std::size_t c, float value) {
    Matrix m = Matrix::from_shape({r, c});
    m.fill(value);
    return m;
}
Matrix counting(std::size_t r, std::size_t c) {  // entry (i, j) = i·c + j
    Matrix m = Matrix::from_shape({r, c});
    for (std::size_t i = 0; i < r; ++i)
        for (std::size_t j = 0; j < c; ++j) m(i, j) = float(i * c + j);
    return m;
}
}  // namespace

TEST_CASE("reference: equal scores give each key 1/m, and the output is the mean of the values") {
    const Matrix Q = filled(3, 4, 0.5f), K = filled(5, 4, 0.5f), V = counting(5, 2);
    const AttentionByLoops r = attention_by_loops(Q, K, V);
    for (std::size_t i = 0; i < 3; ++i) {
        for (std::size_t j = 0; j < 5; ++j) CHECK(r.weights(i, j) == doctest::Approx(0.2));
        CHECK(r.output(i, 0) == doctest::Approx((0 + 2 + 4 + 6 + 8) / 5.0));  // mean of column 0
        CHECK(r.output(i, 1) == doctest::Approx((1 + 3 + 5 + 7 + 9) / 5.0));
    }
    CHECK(r.score_size == doctest::Approx(4 * 0.25 / 2.0));  // Σ_c |q_c k_c| / √4
}

TEST_CASE("reference: two keys whose scaled scores differ by ln 3 get weights 3/4 and 1/4") {
    // q = (1, 0), k_0 = (2·ln 3, 0), k_1 = 0, d_k = 2: scaled scores √2·ln 3 … scaled back below.
    const double gap = std::log(3.0) * std::sqrt(2.0);  // q·k_0 / √2 = ln 3
    Matrix Q = Matrix::from_shape({1, 2}), K = Matrix::from_shape({2, 2}), V = Matrix::from_shape({2, 1});
    Q(0, 0) = 1.0f, Q(0, 1) = 0.0f;
    K(0, 0) = float(gap), K(0, 1) = 0.0f, K(1, 0) = 0.0f, K(1, 1) = 0.0f;
    V(0, 0) = 4.0f, V(1, 0) = 8.0f;
    const AttentionByLoops r = attention_by_loops(Q, K, V);
    CHECK(r.weights(0, 0) == doctest::Approx(0.75).epsilon(1e-6));
    CHECK(r.weights(0, 1) == doctest::Approx(0.25).epsilon(1e-6));
    CHECK(r.output(0, 0) == doctest::Approx(0.75 * 4 + 0.25 * 8).epsilon(1e-6));
}

TEST_CASE("reference: causal, the first query sees only the first key; a window of 1 sees only itself") {
    const Matrix Q = counting(4, 2), K = counting(4, 2), V = counting(4, 3);
    const AttentionByLoops causal = attention_by_loops(Q, K, V, KeysSeen::causal());
    for (std::size_t d = 0; d < 3; ++d) CHECK(causal.output(0, d) == V(0, d));
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = i + 1; j < 4; ++j) CHECK(causal.weights(i, j) == 0.0f);
    const AttentionByLoops self = attention_by_loops(Q, K, V, KeysSeen::causal_window(1));
    for (std::size_t i = 0; i < 4; ++i) {
        CHECK(self.weights(i, i) == 1.0f);
        for (std::size_t d = 0; d < 3; ++d) CHECK(self.output(i, d) == V(i, d));
    }
}

TEST_CASE("reference: a −∞ mask hides keys; a row that sees none is 0; a finite mask shifts a score") {
    const float hidden = -std::numeric_limits<float>::infinity();
    const Matrix Q = filled(2, 2, 1.0f), K = filled(3, 2, 1.0f), V = counting(3, 1);
    Matrix mask = filled(2, 3, 0.0f);
    mask(0, 0) = hidden;                                   // query 0 sees keys 1 and 2
    mask(1, 0) = mask(1, 1) = mask(1, 2) = hidden;         // query 1 sees nothing
    const AttentionByLoops r = attention_by_loops(Q, K, V, KeysSeen::masked(mask));
    CHECK(r.weights(0, 0) == 0.0f);
    CHECK(r.weights(0, 1) == doctest::Approx(0.5));
    CHECK(r.output(0, 0) == doctest::Approx((1 + 2) / 2.0));
    for (std::size_t j = 0; j < 3; ++j) CHECK(r.weights(1, j) == 0.0f);
    CHECK(r.output(1, 0) == 0.0f);
    Matrix shift = filled(1, 2, 0.0f);
    shift(0, 1) = float(std::log(3.0));  // key 1's score + ln 3: three times key 0's weight
    const AttentionByLoops s = attention_by_loops(filled(1, 2, 1.0f), filled(2, 2, 1.0f), counting(2, 1),
                                                  KeysSeen::masked(shift));
    CHECK(s.weights(0, 1) == doctest::Approx(0.75).epsilon(1e-6));
}

TEST_CASE("reference: heads read their own columns; grouped heads share their group's keys and values") {
    // Two query heads of d_k = 1 over one key/value head (multi-query): head 1's queries are
    // 0, so its weights are uniform; head 0's favour the key with the larger k.
    Matrix Q = Matrix::from_shape({1, 2}), K = Matrix::from_shape({2, 1}), V = Matrix::from_shape({2, 1});
    Q(0, 0) = 1.0f, Q(0, 1) = 0.0f;
    K(0, 0) = float(std::log(3.0)), K(1, 0) = 0.0f;  // d_k = 1: scaled score = q·k
    V(0, 0) = 1.0f, V(1, 0) = 5.0f;
    const HeadsByLoops r = heads_by_loops(Q, K, V, 2, 1);
    REQUIRE(r.weights.size() == 2);
    CHECK(r.weights[0](0, 0) == doctest::Approx(0.75).epsilon(1e-6));
    CHECK(r.weights[1](0, 0) == doctest::Approx(0.5));
    CHECK(r.output(0, 0) == doctest::Approx(0.75 * 1 + 0.25 * 5).epsilon(1e-6));  // head 0
    CHECK(r.output(0, 1) == doctest::Approx(0.5 * 1 + 0.5 * 5));                  // head 1
    // kv_heads = h: each head its own columns, the same as one head on those columns.
    const Matrix Qh = counting(3, 4), Kh = counting(3, 4), Vh = counting(3, 4);
    const HeadsByLoops mh = heads_by_loops(Qh * 0.1f, Kh * 0.1f, Vh, 2, 2);
    const Matrix q1 = xt::view(Qh * 0.1f, xt::all(), xt::range(2, 4)), k1 = xt::view(Kh * 0.1f, xt::all(), xt::range(2, 4)),
                 v1 = xt::view(Vh, xt::all(), xt::range(2, 4));
    const AttentionByLoops one = attention_by_loops(q1, k1, v1);
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t d = 0; d < 2; ++d) CHECK(mh.output(i, 2 + d) == one.output(i, d));
}

TEST_CASE("reference: a centred window of w keys, shifted inward at the ends; w ≥ m sees every key") {
    // Equal scores: each query's weights are 1/w on its window's keys, 0 elsewhere.
    const Matrix Q = filled(7, 2, 0.5f), K = filled(7, 2, 0.5f), V = counting(7, 1);
    const AttentionByLoops r = attention_by_loops(Q, K, V, KeysSeen::centred_window(3, 7));
    // By hand, b = min(max(i − 1, 0), 4): queries 0 and 1 see 0–2, query 3 sees 2–4, 5 and 6 see 4–6.
    const std::size_t first_key[7] = {0, 0, 1, 2, 3, 4, 4};
    for (std::size_t i = 0; i < 7; ++i) {
        for (std::size_t j = 0; j < 7; ++j) {
            const bool inside = first_key[i] <= j && j < first_key[i] + 3;
            CHECK(r.weights(i, j) == doctest::Approx(inside ? 1.0 / 3.0 : 0.0));
        }
        CHECK(r.output(i, 0) == doctest::Approx(double(first_key[i]) + 1.0));  // the mean of three keys
    }
    const KeysSeen even = KeysSeen::centred_window(4, 7);  // b = i − 2: query 3 sees 1–4
    CHECK((!even.sees(3, 0) && even.sees(3, 1) && even.sees(3, 4) && !even.sees(3, 5)));
    const KeysSeen wide = KeysSeen::centred_window(9, 7);
    for (std::size_t j = 0; j < 7; ++j) CHECK(wide.times(3, j) == 1);
}

TEST_CASE("reference: LongNet's dilated segments, a key seen through two pairs counting twice") {
    // Pairs (2, 1) and (4, 2) over 4 keys. Through (2, 1): segments {0, 1} and {2, 3}. Through
    // (4, 2): one segment whose tokens 0 and 2 see each other. So query 0 sees key 0 twice
    // (both pairs), key 1 once, key 2 once; query 1 sees keys 0 and 1; query 3 sees 2 and 3.
    const std::vector<DilatedPair> pairs = {{2, 1}, {4, 2}};
    const KeysSeen seen = KeysSeen::dilated(pairs, 4);
    const std::size_t expected[4][4] = {{2, 1, 1, 0}, {1, 1, 0, 0}, {1, 0, 2, 1}, {0, 0, 1, 1}};
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = 0; j < 4; ++j) CHECK(seen.times(i, j) == expected[i][j]);
    // Equal scores: query 0's weights are 2/4, 1/4, 1/4, 0 (one softmax over its four entries).
    const AttentionByLoops r = attention_by_loops(filled(4, 2, 0.5f), filled(4, 2, 0.5f), counting(4, 1), seen);
    CHECK(r.weights(0, 0) == doctest::Approx(0.5));
    CHECK(r.weights(0, 1) == doctest::Approx(0.25));
    CHECK(r.weights(0, 2) == doctest::Approx(0.25));
    CHECK(r.weights(0, 3) == 0.0f);
    CHECK(r.output(0, 0) == doctest::Approx(0.5 * 0 + 0.25 * 1 + 0.25 * 2));
    // One pair (w ≥ m, r = 1) is every key once: full attention.
    const std::vector<DilatedPair> one = {{8, 1}};
    const KeysSeen all = KeysSeen::dilated(one, 4);
    for (std::size_t j = 0; j < 4; ++j) CHECK(all.times(2, j) == 1);
}
