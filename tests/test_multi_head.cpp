// Multi-head attention: the head slices, split/merge, and the claim of chapter
// 07 that separate heads equal one split matrix, against a plain loop in double.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include <xtensor/xmanipulation.hpp>

#include "common/attention/attention.hpp"
#include "common/attention/multi_head.hpp"
#include "common/lesson/self_check.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/matmul.hpp"
#include "common/numbers/random.hpp"

namespace {
// Multi-head self-attention written from the formula, head by head and entry
// by entry, in double: no BLAS, no reshape.
Matrix reference_multi_head(const Matrix& X, const Matrix& W_Q, const Matrix& W_K, const Matrix& W_V,
                            const Matrix& W_O, std::size_t h) {
    const std::size_t n = rows(X), d_model = cols(X), d_k = cols(W_Q) / h;
    std::vector<double> concat(n * h * d_k, 0.0);
    const auto project = [&](const Matrix& W, std::size_t r, std::size_t c) {
        double sum = 0.0;
        for (std::size_t d = 0; d < d_model; ++d) sum += double(X(r, d)) * W(d, c);
        return sum;
    };
    for (std::size_t i = 0; i < h; ++i)
        for (std::size_t q = 0; q < n; ++q) {
            std::vector<double> score(n);
            double top = -1e300;
            for (std::size_t k = 0; k < n; ++k) {
                double s = 0.0;
                for (std::size_t c = i * d_k; c < (i + 1) * d_k; ++c) s += project(W_Q, q, c) * project(W_K, k, c);
                score[k] = s / std::sqrt(double(d_k));
                top = std::max(top, score[k]);
            }
            double z = 0.0;
            for (auto& s : score) z += (s = std::exp(s - top));
            for (std::size_t k = 0; k < n; ++k)
                for (std::size_t c = i * d_k; c < (i + 1) * d_k; ++c)
                    concat[q * h * d_k + c] += score[k] / z * project(W_V, k, c);
        }
    Matrix output = Matrix::from_shape({n, cols(W_O)});
    for (std::size_t q = 0; q < n; ++q)
        for (std::size_t o = 0; o < cols(W_O); ++o) {
            double sum = 0.0;
            for (std::size_t c = 0; c < h * d_k; ++c) sum += concat[q * h * d_k + c] * W_O(c, o);
            output(q, o) = float(sum);
        }
    return output;
}
}  // namespace

TEST_CASE("head i owns its block of d_k columns of W_Q and its block of d_v rows of W_O") {
    const Matrix W = {{0, 1, 2, 3, 4, 5}, {10, 11, 12, 13, 14, 15}};
    CHECK(head_columns(W, 3, 1) == Matrix{{2, 3}, {12, 13}});
    CHECK(head_columns(W, 2, 1) == Matrix{{3, 4, 5}, {13, 14, 15}});
    CHECK(head_columns(W, 1, 0) == W);
    const Matrix O = {{0, 1}, {2, 3}, {4, 5}, {6, 7}};
    CHECK(head_rows(O, 2, 1) == Matrix{{4, 5}, {6, 7}});
    CHECK(head_rows(O, 4, 0) == Matrix{{0, 1}});
}

TEST_CASE("split_heads puts column i·d_k + c of row r at (i, r, c), and merge_heads undoes it") {
    Random random(71);
    for (const std::size_t h : {1u, 2u, 3u, 4u}) {
        const std::size_t n = 5, d_k = 3;
        const Matrix m = random.normal_matrix(n, h * d_k);
        const Heads heads = split_heads(m, h);
        REQUIRE(heads.shape(0) == h);
        REQUIRE(heads.shape(1) == n);
        REQUIRE(heads.shape(2) == d_k);
        for (std::size_t i = 0; i < h; ++i) {
            CHECK(head(heads, i) == head_columns(m, h, i));
            for (std::size_t r = 0; r < n; ++r)
                for (std::size_t c = 0; c < d_k; ++c) CHECK(heads(i, r, c) == m(r, i * d_k + c));
        }
        CHECK(merge_heads(heads) == m);
    }
}

TEST_CASE("d_model not divisible by h is rejected, and so is h = 0") {
    CHECK_THROWS_AS(require_divisible(10, 3), InputError);
    CHECK_THROWS_AS(require_divisible(8, 0), InputError);
    CHECK_THROWS_AS(require_divisible(0, 2), InputError);
    CHECK_NOTHROW(require_divisible(12, 4));
    CHECK_NOTHROW(require_divisible(7, 1));
    const Matrix W = Matrix::from_shape({4, 10});
    CHECK_THROWS_AS(split_heads(W, 4), InputError);
    CHECK_THROWS_AS(head_columns(W, 3, 0), InputError);
    Random random(72);
    const Matrix X = random.normal_matrix(3, 10), W10 = random.normal_matrix(10, 10);
    CHECK_THROWS_AS(multi_head_attention(X, W10, W10, W10, W10, 4), InputError);
}

TEST_CASE("separate heads equal one split matrix (random shapes, several h)") {
    Random random(73);
    for (const std::size_t h : {1u, 2u, 3u, 4u, 6u}) {
        for (const std::size_t d_k : {1u, 2u, 5u}) {
            const std::size_t n = 1 + random.next_u64() % 7, d_model = h * d_k;
            CAPTURE(h);
            CAPTURE(d_k);
            CAPTURE(n);
            const float scale = 1.0f / std::sqrt(float(d_model));
            const Matrix X = random.normal_matrix(n, d_model);
            const Matrix W_Q = random.normal_matrix(d_model, d_model, 2 * scale),
                         W_K = random.normal_matrix(d_model, d_model, 2 * scale),
                         W_V = random.normal_matrix(d_model, d_model, scale),
                         W_O = random.normal_matrix(d_model, d_model, scale);
            const MultiHeadSteps split = multi_head_attention(X, W_Q, W_K, W_V, W_O, h);
            CHECK(max_abs_difference(split.output, reference_multi_head(X, W_Q, W_K, W_V, W_O, h)) < 1e-5);
            // each head alone, with its own slices of the weights
            for (std::size_t i = 0; i < h; ++i) {
                const AttentionSteps a = scaled_dot_product_attention(matmul(X, head_columns(W_Q, h, i)),
                                                                      matmul(X, head_columns(W_K, h, i)),
                                                                      matmul(X, head_columns(W_V, h, i)));
                CHECK(max_abs_difference(head(split.weights, i), a.weights) < 1e-6);
                CHECK(max_abs_difference(head_columns(split.concat, h, i), a.output) < 1e-5);
            }
            CHECK(max_abs_difference(split.output, matmul(split.concat, W_O)) < 1e-6);
        }
    }
}

TEST_CASE("one head is plain attention followed by W_O") {
    Random random(74);
    const Matrix X = random.normal_matrix(4, 6), W_Q = random.normal_matrix(6, 6), W_K = random.normal_matrix(6, 6),
                 W_V = random.normal_matrix(6, 6), W_O = random.normal_matrix(6, 6);
    const MultiHeadSteps one = multi_head_attention(X, W_Q, W_K, W_V, W_O, 1);
    const AttentionSteps a = scaled_dot_product_attention(matmul(X, W_Q), matmul(X, W_K), matmul(X, W_V));
    CHECK(max_abs_difference(one.concat, a.output) < 1e-6);
    CHECK(max_abs_difference(one.output, matmul(a.output, W_O)) < 1e-5);
}

// Chapter 07's sentence about PyTorch's q.view(n, h, d_k).transpose(0, 1): the
// reshaped and swapped Q is a strided view of the same memory (a head's block is
// not contiguous); split_heads evaluates it into a new array whose blocks are.
TEST_CASE("split_heads: the swapped view is strided, the evaluated heads are contiguous") {
    const std::size_t n = 3, h = 2, d_k = 4;
    Matrix Q = Matrix::from_shape({n, h * d_k});
    for (std::size_t i = 0; i < Q.size(); ++i) Q.data()[i] = static_cast<float>(i);
    auto by_token = xt::reshape_view(Q, {n, h, d_k});        // (n × h × d_k), no copy
    auto swapped = xt::transpose(by_token, {1, 0, 2});       // (h × n × d_k), no copy
    CHECK(swapped.strides()[0] == static_cast<std::ptrdiff_t>(d_k));          // the next head: d_k floats on
    CHECK(swapped.strides()[1] == static_cast<std::ptrdiff_t>(h * d_k));      // the next token: a whole row of Q
    CHECK(swapped.strides()[2] == 1);
    const Heads heads = split_heads(Q, h);
    CHECK(heads.strides()[0] == static_cast<std::ptrdiff_t>(n * d_k));        // one block after another
    CHECK(heads.strides()[1] == static_cast<std::ptrdiff_t>(d_k));
    for (std::size_t i = 0; i < h; ++i)  // block i holds columns [i·d_k, (i+1)·d_k) of Q, packed
        for (std::size_t t = 0; t < n; ++t)
            for (std::size_t c = 0; c < d_k; ++c)
                CHECK(heads.data()[(i * n + t) * d_k + c] == Q(t, i * d_k + c));
}
