// Reordering rows, and the symmetries of attention it reveals: without
// positions, self-attention is permutation-equivariant; a positional encoding
// breaks that; and for cross-attention the keys and values form a set.
#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>

#include "common/attention/attention.hpp"
#include "common/attention/permutation.hpp"
#include "common/attention/positional_encoding.hpp"
#include "common/lesson/self_check.hpp"
#include "common/numbers/matmul.hpp"
#include "common/numbers/random.hpp"

namespace {
// A uniformly random permutation of 0 … n−1 (Fisher–Yates), from the project's generator.
Order random_order(std::size_t n, Random& random) {
    Order order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[random.next_u64() % i]);
    return order;
}

AttentionSteps self_attention(const Matrix& X, const Matrix& W_Q, const Matrix& W_K, const Matrix& W_V) {
    return scaled_dot_product_attention(matmul(X, W_Q), matmul(X, W_K), matmul(X, W_V));
}
}  // namespace

TEST_CASE("permute_rows, permute_columns and permute_labels follow the order") {
    const Matrix m = {{1, 2}, {3, 4}, {5, 6}};
    const Order order = {2, 0, 1};
    const Matrix r = permute_rows(m, order);
    CHECK(r(0, 0) == 5.0f);
    CHECK(r(1, 1) == 2.0f);
    CHECK(r(2, 0) == 3.0f);
    const Matrix c = permute_columns(m, {1, 0});
    CHECK(c(0, 0) == 2.0f);
    CHECK(c(2, 1) == 5.0f);
    CHECK(permute_labels({"a", "b", "c"}, order) == Labels{"c", "a", "b"});
    CHECK(reversal(4) == Order{3, 2, 1, 0});
}

TEST_CASE("an order that is not a permutation is refused") {
    CHECK(is_permutation_of({1, 0, 2}, 3));
    CHECK_FALSE(is_permutation_of({0, 0, 2}, 3));
    CHECK_FALSE(is_permutation_of({0, 1}, 3));
    CHECK_FALSE(is_permutation_of({0, 1, 3}, 3));
    const Matrix m = {{1, 2}, {3, 4}};
    CHECK_THROWS_AS(permute_rows(m, {0, 0}), std::invalid_argument);
    CHECK_THROWS_AS(permute_columns(m, {0}), std::invalid_argument);
}

TEST_CASE("without positions, self-attention is permutation-equivariant (random inputs and orders)") {
    Random random(9);
    for (int trial = 0; trial < 20; ++trial) {
        CAPTURE(trial);
        const std::size_t n = 2 + random.next_u64() % 9, d_model = 2 + random.next_u64() % 12, d_k = 4;
        const Matrix X = random.normal_matrix(n, d_model);
        const Matrix W_Q = random.normal_matrix(d_model, d_k, 0.5f), W_K = random.normal_matrix(d_model, d_k, 0.5f),
                     W_V = random.normal_matrix(d_model, d_k, 0.5f);
        const Order order = random_order(n, random);
        const AttentionSteps a = self_attention(X, W_Q, W_K, W_V);
        const AttentionSteps b = self_attention(permute_rows(X, order), W_Q, W_K, W_V);
        // Rows and columns of the weights follow the tokens; the output rows too.
        CHECK(max_abs_difference(b.weights, permute_columns(permute_rows(a.weights, order), order)) < 1e-5);
        CHECK(max_abs_difference(b.output, permute_rows(a.output, order)) < 1e-5);
    }
}

TEST_CASE("with the sinusoidal encoding added, a permutation no longer permutes the outputs") {
    Random random(10);
    for (int trial = 0; trial < 20; ++trial) {
        CAPTURE(trial);
        const std::size_t n = 3 + random.next_u64() % 8, d_model = 8, d_k = 4;
        const Matrix X = random.normal_matrix(n, d_model);
        const Matrix W_Q = random.normal_matrix(d_model, d_k), W_K = random.normal_matrix(d_model, d_k),
                     W_V = random.normal_matrix(d_model, d_k);
        Order order = random_order(n, random);
        if (std::is_sorted(order.begin(), order.end())) std::swap(order[0], order[1]);  // not the identity
        const Matrix PE = sinusoidal_encoding(n, d_model);
        const AttentionSteps a = self_attention(X + PE, W_Q, W_K, W_V);
        const AttentionSteps b = self_attention(permute_rows(X, order) + PE, W_Q, W_K, W_V);
        CHECK(max_abs_difference(b.output, permute_rows(a.output, order)) > 1e-3);
    }
}

TEST_CASE("cross-attention: permuting the keys and values together permutes the weights' columns only") {
    Random random(11);
    for (int trial = 0; trial < 20; ++trial) {
        CAPTURE(trial);
        const std::size_t m = 1 + random.next_u64() % 6, n = 2 + random.next_u64() % 9, d_k = 5, d_v = 3;
        const Matrix Q = random.normal_matrix(m, d_k), K = random.normal_matrix(n, d_k), V = random.normal_matrix(n, d_v);
        const Order order = random_order(n, random);
        const AttentionSteps a = scaled_dot_product_attention(Q, K, V);
        const AttentionSteps b = scaled_dot_product_attention(Q, permute_rows(K, order), permute_rows(V, order));
        REQUIRE(rows(a.weights) == m);
        REQUIRE(cols(a.weights) == n);
        REQUIRE(rows(a.output) == m);
        REQUIRE(cols(a.output) == d_v);
        CHECK(max_abs_difference(b.weights, permute_columns(a.weights, order)) < 1e-6);
        CHECK(max_abs_difference(b.output, a.output) < 1e-5);
        // Permuting the keys alone (values left in place) does change the output.
        if (!std::is_sorted(order.begin(), order.end())) {
            const AttentionSteps c = scaled_dot_product_attention(Q, permute_rows(K, order), V);
            CHECK(max_abs_difference(c.output, a.output) > 1e-4);
        }
    }
}
