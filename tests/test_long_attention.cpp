// The long-sequence kernels (common/long_context/long_attention.hpp) against a loop in
// double precision, against each other, and the memory guard
// (common/numbers/memory_budget.hpp) on lengths no machine can hold.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "common/lesson/self_check.hpp"
#include "common/long_context/long_attention.hpp"
#include "common/machine/machine_memory.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/memory_budget.hpp"
#include "common/numbers/random.hpp"

namespace {

// Σ_j softmax_j(q_i · k_j / √d) v_j over the keys j in [begin(i), end(i)),
// one query at a time, in double: the formula of the paper as a loop.
template <class Begin, class End>
Matrix loop_attention(const Matrix& Q, const Matrix& K, const Matrix& V, Begin begin, End end) {
    const std::size_t n = rows(Q), d = cols(Q), dv = cols(V);
    Matrix out = Matrix::from_shape({n, dv});
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<double> s;
        double top = -std::numeric_limits<double>::infinity();
        for (std::size_t j = begin(i); j < end(i); ++j) {
            double dot = 0.0;
            for (std::size_t c = 0; c < d; ++c) dot += double(Q(i, c)) * K(j, c);
            s.push_back(dot / std::sqrt(double(d)));
            top = std::max(top, s.back());
        }
        double z = 0.0;
        for (const double x : s) z += std::exp(x - top);
        for (std::size_t c = 0; c < dv; ++c) {
            double o = 0.0;
            for (std::size_t j = begin(i); j < end(i); ++j) o += std::exp(s[j - begin(i)] - top) / z * V(j, c);
            out(i, c) = float(o);
        }
    }
    return out;
}

Matrix loop_full(const Matrix& Q, const Matrix& K, const Matrix& V, bool causal = false) {
    const std::size_t m = rows(K);
    return loop_attention(
        Q, K, V, [](std::size_t) { return std::size_t{0}; },
        [&](std::size_t i) { return causal ? std::min(i + 1, m) : m; });
}

struct Case {
    std::size_t n, m, d, dv, bq, bk;
};

}  // namespace

TEST_CASE("materialised attention equals the loop of the paper's formula") {
    Random rng(1);
    const Matrix Q = rng.normal_matrix(7, 5), K = rng.normal_matrix(9, 5), V = rng.normal_matrix(9, 3);
    CHECK(max_abs_difference(materialised_attention(Q, K, V), loop_full(Q, K, V)) < 1e-6);
    CHECK(max_abs_difference(materialised_attention(Q, K, V, true), loop_full(Q, K, V, true)) < 1e-6);
}

TEST_CASE("streaming attention equals materialised attention for awkward shapes") {
    const std::vector<Case> cases = {
        {1, 1, 4, 4, 128, 256},     // n = 1
        {5, 5, 8, 8, 128, 256},     // n smaller than one block
        {100, 100, 16, 16, 32, 48}, // n not a multiple of either block
        {37, 61, 8, 5, 8, 16},      // cross-attention: m ≠ n, d_v ≠ d_k
        {64, 64, 64, 64, 64, 64},   // exact multiples
        {50, 50, 4, 4, 1, 1},       // one query and one key per tile
        {1100, 1000, 8, 8, 128, 256},  // weights of 4.4 MB: the buffer in 2 MiB pages
    };
    std::uint64_t seed = 10;
    for (const Case& c : cases) {
        CAPTURE(c.n);
        CAPTURE(c.m);
        CAPTURE(c.bq);
        CAPTURE(c.bk);
        const Matrix Q = Random(seed++).normal_matrix(c.n, c.d, 2.0f);  // large scores: the maximum moves often
        const Matrix K = Random(seed++).normal_matrix(c.m, c.d, 2.0f);
        const Matrix V = Random(seed++).normal_matrix(c.m, c.dv);
        const AttentionBlocks blocks{c.bq, c.bk};
        CHECK(max_abs_difference(streaming_attention(Q, K, V, blocks), materialised_attention(Q, K, V)) < 2e-5);
        CHECK(max_abs_difference(streaming_attention(Q, K, V, blocks), loop_full(Q, K, V)) < 2e-5);
        SUBCASE("with a causal mask") {
            CHECK(max_abs_difference(streaming_attention(Q, K, V, blocks, true),
                                     materialised_attention(Q, K, V, true)) < 2e-5);
            CHECK(max_abs_difference(streaming_attention(Q, K, V, blocks, true), loop_full(Q, K, V, true)) < 2e-5);
        }
    }
}

TEST_CASE("causal streaming: the first query sees only the first key, so its output is v_0") {
    const Matrix Q = Random(3).normal_matrix(20, 4), K = Random(4).normal_matrix(20, 4),
                 V = Random(5).normal_matrix(20, 3);
    const Matrix out = streaming_attention(Q, K, V, {8, 8}, true);
    for (std::size_t c = 0; c < 3; ++c) CHECK(out(0, c) == doctest::Approx(V(0, c)).epsilon(1e-6));
}

TEST_CASE("streaming in place writes the same output over Q") {
    const Matrix K = Random(6).normal_matrix(300, 16), V = Random(7).normal_matrix(300, 16);
    Matrix Q = Random(8).normal_matrix(300, 16);
    const Matrix expected = materialised_attention(Q, K, V);
    streaming_attention_in_place(Q, K, V, {64, 100});
    CHECK(max_abs_difference(Q, expected) < 2e-5);
    Matrix narrow = Random(9).normal_matrix(300, 16);
    CHECK_THROWS_AS(streaming_attention_in_place(narrow, K, Random(1).normal_matrix(300, 8)), InputError);
}

TEST_CASE("the window of query i: w keys centred on it, shifted inward at the ends") {
    // n = 10, w = 4: [i − 2, i + 2) clamped to [0, 6]
    CHECK(window_begin(0, 10, 4) == 0);
    CHECK(window_begin(1, 10, 4) == 0);
    CHECK(window_begin(2, 10, 4) == 0);
    CHECK(window_begin(3, 10, 4) == 1);
    CHECK(window_begin(7, 10, 4) == 5);
    CHECK(window_begin(8, 10, 4) == 6);
    CHECK(window_begin(9, 10, 4) == 6);
    CHECK(window_begin(5, 10, 10) == 0);  // w ≥ n: every key
    CHECK(window_begin(5, 10, 99) == 0);
}

TEST_CASE("every query of the sliding window sees exactly w keys, itself among them (not Longformer's w/2 a side)") {
    for (const std::size_t n : {1u, 5u, 10u, 33u})
        for (const std::size_t w : {1u, 2u, 3u, 4u, 7u, 10u, 40u}) {
            const std::size_t seen = std::min(w, n);
            for (std::size_t i = 0; i < n; ++i) {
                const std::size_t b = window_begin(i, n, w);
                CHECK(b + seen <= n);                // inside the sequence: exactly min(w, n) keys
                CHECK((b <= i && i < b + seen));     // the query sees itself
            }
            // Longformer's window, w/2 keys each side of i, has fewer at the ends;
            // this one is shifted inward instead: query 0 sees keys 0 … w − 1.
            CHECK(window_begin(0, n, w) == 0);
            CHECK(window_begin(n - 1, n, w) == n - seen);
        }
}

TEST_CASE("sliding-window attention equals the loop over each query's window") {
    const std::size_t n = 70, w = 9;
    const Matrix Q = Random(21).normal_matrix(n, 8), K = Random(22).normal_matrix(n, 8),
                 V = Random(23).normal_matrix(n, 6);
    const Matrix expected = loop_attention(
        Q, K, V, [&](std::size_t i) { return window_begin(i, n, w); },
        [&](std::size_t i) { return window_begin(i, n, w) + w; });
    CHECK(max_abs_difference(sliding_window_attention(Q, K, V, w, {16, 16}), expected) < 2e-5);
    CHECK(max_abs_difference(sliding_window_attention(Q, K, V, w, {1, 7}), expected) < 2e-5);
}

TEST_CASE("a window of w ≥ n keys is full attention") {
    const Matrix Q = Random(31).normal_matrix(45, 8), K = Random(32).normal_matrix(45, 8),
                 V = Random(33).normal_matrix(45, 8);
    const Matrix full = materialised_attention(Q, K, V);
    CHECK(max_abs_difference(sliding_window_attention(Q, K, V, 45, {16, 16}), full) < 2e-5);
    CHECK(max_abs_difference(sliding_window_attention(Q, K, V, 1000, {16, 16}), full) < 2e-5);
    // and a window of 1 key returns each token's own value
    const Matrix own = sliding_window_attention(Q, K, V, 1, {16, 16});
    CHECK(max_abs_difference(own, V) < 1e-6);
}

TEST_CASE("dilated attention with the one pair (w = n, r = 1) is full attention") {
    const Matrix Q = Random(41).normal_matrix(50, 8), K = Random(42).normal_matrix(50, 8),
                 V = Random(43).normal_matrix(50, 4);
    const Matrix full = materialised_attention(Q, K, V);
    CHECK(max_abs_difference(dilated_attention(Q, K, V, {{50, 1}}, {16, 16}), full) < 2e-5);
    CHECK(max_abs_difference(dilated_attention(Q, K, V, {{4096, 1}}, {16, 16}), full) < 2e-5);
}

TEST_CASE("dilated attention: one pair with r = 1 is block-diagonal attention within segments") {
    const std::size_t n = 23, w = 5;  // the last segment is short (3 tokens)
    const Matrix Q = Random(51).normal_matrix(n, 4), K = Random(52).normal_matrix(n, 4),
                 V = Random(53).normal_matrix(n, 3);
    const Matrix expected = loop_attention(
        Q, K, V, [&](std::size_t i) { return i / w * w; }, [&](std::size_t i) { return std::min(i / w * w + w, n); });
    CHECK(max_abs_difference(dilated_attention(Q, K, V, {{w, 1}}, {2, 3}), expected) < 2e-5);
}

TEST_CASE("dilated attention mixes the pairs by their softmax denominators") {
    // Pairs (4, 1) and (8, 2) on n = 8. Token 0 is in both: the (4, 1) segment
    // {0, 1, 2, 3} and the (8, 2) segment {0, 2, 4, 6}. The mixture weights the
    // two outputs by Σ_j exp(s_0j) over each pair's keys, so it equals a softmax
    // over the keys 0, 1, 2, 3, 0, 2, 4, 6 (0 and 2 counted twice).
    const Matrix Q = Random(61).normal_matrix(8, 4), K = Random(62).normal_matrix(8, 4),
                 V = Random(63).normal_matrix(8, 3);
    const std::vector<std::size_t> keys = {0, 1, 2, 3, 0, 2, 4, 6};
    std::vector<double> e;
    double z = 0.0;
    for (const std::size_t j : keys) {
        double dot = 0.0;
        for (std::size_t c = 0; c < 4; ++c) dot += double(Q(0, c)) * K(j, c);
        e.push_back(std::exp(dot / 2.0));  // √4 = 2
        z += e.back();
    }
    const Matrix out = dilated_attention(Q, K, V, {{4, 1}, {8, 2}}, {2, 2});
    for (std::size_t c = 0; c < 3; ++c) {
        double expected = 0.0;
        for (std::size_t t = 0; t < keys.size(); ++t) expected += e[t] / z * V(keys[t], c);
        CHECK(out(0, c) == doctest::Approx(expected).epsilon(1e-5));
    }
    // token 1 is only in the (4, 1) pair: plain attention over {0, 1, 2, 3}
    const Matrix block = loop_attention(
        Q, K, V, [](std::size_t i) { return i / 4 * 4; }, [](std::size_t i) { return i / 4 * 4 + 4; });
    for (std::size_t c = 0; c < 3; ++c) CHECK(out(1, c) == doctest::Approx(block(1, c)).epsilon(1e-5));
}

TEST_CASE("dilated attention refuses pairs that leave tokens out") {
    const Matrix Q = Random(71).normal_matrix(8, 4);
    CHECK_THROWS_AS(dilated_attention(Q, Q, Q, {{4, 2}}), InputError);
    CHECK_THROWS_AS(dilated_attention(Q, Q, Q, {}), InputError);
    CHECK_THROWS_AS(dilated_attention(Q, Q, Q, {{0, 1}}), InputError);
}

TEST_CASE("the work counted: 4·n·m·d for exact attention, less for the sparse patterns") {
    CHECK(exact_attention_flops(4096, 4096, 64) == doctest::Approx(4.0 * 4096 * 4096 * 64));
    CHECK(sliding_window_flops(4096, 256, 64) == doctest::Approx(4.0 * 4096 * 256 * 64));
    CHECK(sliding_window_flops(100, 256, 64) == doctest::Approx(exact_attention_flops(100, 100, 64)));
    // n/w segments of w/r tokens each: 4·(n/w)·(w/r)²·d = 4·n·w·d/r²
    CHECK(dilated_flops(4096, {{1024, 4}}, 64) == doctest::Approx(4.0 * 4096 * 1024 * 64 / 16));
    CHECK(dilated_flops(10, {{4, 2}}, 1) == doctest::Approx(4.0 * (2 * 2 + 2 * 2 + 1 * 1)));
}

TEST_CASE("memory: byte counts, saturation and the guard") {
    CHECK(bytes_of_floats({3, 4}) == 48);
    CHECK(bytes_of_floats({100000, 100000}) == 40000000000ull);
    const std::uint64_t huge = bytes_of_floats({10000000000ull, 10000000000ull});  // 4·10²⁰ > 2⁶⁴
    CHECK(huge == std::numeric_limits<std::uint64_t>::max());
    CHECK(add_bytes(huge, 1) == huge);
    CHECK(materialised_extra_bytes(1000, 500, 64) == 4ull * (1000 * 500 + 1000 * 64));
    CHECK(streaming_extra_bytes(1000, 64, {128, 256}) == 4ull * (1000 * 64 + 128 * 256 + 128 * 64 + 2 * 128));
    // Blocks larger than the sequence are clamped to it, in the kernel and in its estimate alike.
    CHECK(streaming_extra_bytes(256, 64, {65536, 65536}) == 4ull * (256 * 64 + 256 * 256 + 256 * 64 + 2 * 256));
    CHECK(clamped_blocks({65536, 0}, 256, 100).q == 256);
    CHECK(clamped_blocks({65536, 0}, 256, 100).k == 1);
    CHECK(format_bytes(512) == "512 B");
    CHECK(format_bytes(1536) == "1.5 KiB");
    CHECK(format_bytes(40000000000ull) == "37.3 GiB");

    CHECK(fits_in_memory(100, 100));
    CHECK_FALSE(fits_in_memory(101, 100));
    CHECK_NOTHROW(require_memory("a small thing", 1000, 4096));
    CHECK_THROWS_AS(require_memory("a big thing", 5000, 4096), InputError);
    try {
        require_memory("n = 100000", bytes_of_floats({100000, 100000}), 1ull << 30);
        FAIL("not refused");
    } catch (const InputError& e) {
        CHECK(std::string(e.what()) ==
              "n = 100000 would need 37.3 GiB, more than the 1.0 GiB this machine can spare "
              "(half of its available memory)");
    }
}

TEST_CASE("the guard on this machine: 10 000 000 tokens never fit, 1000 always do") {
    const std::uint64_t limit = memory_limit_bytes();
    CHECK(limit > 0);
    CHECK(limit <= available_memory_bytes());
    // the chapter's refusal of --max-n 1000000000: Q, K, V alone are 715 GiB at d = 64
    CHECK_THROWS_AS(require_memory("streaming", bytes_of_floats({3, 1000000000, 64}), limit), InputError);
    CHECK_FALSE(fits_in_memory(materialised_extra_bytes(10000000, 10000000, 64), limit));
    CHECK(fits_in_memory(materialised_extra_bytes(1000, 1000, 64), limit));
    // The current size first: reading /proc allocates, so a size read later can pass a peak read earlier.
    const std::uint64_t current = current_resident_bytes();
    CHECK(peak_resident_bytes() >= current);
}
