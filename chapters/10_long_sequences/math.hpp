// Chapter 10 · the mathematics: long sequences, the quadratic cost and what beats it.
//
// One head, Q, K, V (n × d):
//
//   scores  = Q · Kᵀ / √d       (n × n)    2·n²·d FLOPs
//   weights = softmax(scores)    (n × n)    n² exps, 4·n² bytes if stored
//   output  = weights · V        (n × d)    2·n²·d FLOPs
//
// Against it, a recurrent layer of width d: h_t = tanh(x_t · W_x + h_(t−1) · W_h),
// 4·n·d² FLOPs in n steps that wait for each other.
//
// The online softmax (one query q, keys in any order), from m = −∞, l = 0, o = 0:
//
//   s = q · k_j / √d,  m_new = max(m, s)
//   l = l · exp(m − m_new) + exp(s − m_new)
//   o = o · exp(m − m_new) + exp(s − m_new) · v_j,   m = m_new;   output = o / l
//
// Tiled over blocks of queries and keys (FlashAttention-2's order) it is exact
// streaming attention in O(n·d) memory. Fewer keys: a sliding window of w keys,
// [b, b + w) with b = i − w/2 shifted inward at the ends; LongNet's dilated
// segments. The kernels are common/math/long_attention.hpp; this file measures
// them (through a `Measure` the lesson gives) and checks them against loops.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/math/long_attention.hpp"
#include "common/math/matrix.hpp"

struct Inputs {
    Matrix Q, K, V;  // (n × d) each
};
// Random normal tokens (seeds seed, seed + 1, seed + 2): they attend everywhere.
Inputs random_inputs(std::size_t n, std::size_t d, std::uint64_t seed);
// Tokens that resemble their neighbours, x_i = ρ·x_(i−1) + √(1−ρ²)·z_i with ρ = 0.99,
// Q = K = X: each query's weight sits near the diagonal.
Inputs local_inputs(std::size_t n, std::size_t d, std::uint64_t seed);

// h_t = tanh(x_t · W_x + h_(t−1) · W_h): X (n × d), W_x, W_h (d × d) → H (n × d).
Matrix recurrent_layer(const Matrix& X, const Matrix& W_x, const Matrix& W_h);

// The online softmax for query `row`, one key at a time, as printed.
struct OnlineStep {
    float s, m, rescale, p, l, o0;  // score, running max, exp(m_old − m), exp(s − m), l, o_0 / l
};
struct OnlineTrace {
    std::vector<OnlineStep> steps;  // one per key
    Vector output;                  // (d_v) o / l after the last key
};
OnlineTrace online_softmax_one_query(const Matrix& Q, std::size_t row, const Matrix& K, const Matrix& V);

// The definitions by loops in double, independent of the kernels:
// softmax over the keys each query sees, then the weighted sum of values.
Matrix attention_by_loops(const Matrix& Q, const Matrix& K, const Matrix& V, bool causal = false);
Matrix window_by_loops(const Matrix& Q, const Matrix& K, const Matrix& V, std::size_t w);  // keys [b, b + w)
// LongNet's mixture = one softmax over every (pair, key) entry that includes the query.
Matrix dilated_by_loops(const Matrix& Q, const Matrix& K, const Matrix& V, const std::vector<DilatedPair>& pairs);

// ‖a − b‖ / ‖b‖ over all entries.
double relative_error(const Matrix& a, const Matrix& b);
// The least-squares slope of log y against log x: y ∝ x^slope (NaN with < 2 points).
double loglog_slope(const std::vector<double>& x, const std::vector<double>& y);

// One measurement, given by the lesson: the seconds of one call, the bytes it added (0: unknown).
struct Cost {
    double seconds = 0.0, bytes = 0.0;
};
using Measure = std::function<Cost(const std::function<void()>& work)>;

// One method measured at n = 256, 512, …
struct Sweep {
    std::string name;
    std::vector<double> n, seconds, bytes;
    // The slope over the points with n ≥ from (or the two longest, in a short sweep).
    double slope(const std::vector<double>& y, double from) const;
};

struct Settings {
    std::size_t max_n = 16384, d = 64, window = 256;
    AttentionBlocks blocks;
    std::vector<DilatedPair> pairs;
    double budget_s = 8.0;
    std::uint64_t memory_limit = 0;  // bytes this machine can spare
};

struct CrossoverRow {
    std::size_t n;
    double attention_s, recurrent_s;
};

// Everything the lesson shows, computed (and measured) once.
struct LongSequences {
    std::vector<CrossoverRow> crossover;  // n = d/4 … 32·d
    std::size_t first_loss = 0;           // the first n where attention was slower (0: never)
    Sweep full, stream, window, dilated;  // materialised, streaming, sliding window, LongNet
    std::size_t refused_n = 0;            // the first length whose n × n weights would not fit (0: none)
    std::uint64_t refused_bytes = 0;
    Inputs tiny;                          // (8 × 4), seed 5
    OnlineTrace trace;                    // query 0 of `tiny`
    Matrix tiny_full;                     // (8 × 4) materialised attention of `tiny`
    std::size_t n_check = 0;              // 1000 (not a multiple of the blocks) or --max-n
    double tiled_error = 0.0, causal_error = 0.0;  // streaming against materialised at n_check
    std::size_t n_error = 0;              // 4096 or --max-n
    struct ErrorRow {
        std::string inputs;
        double window_max, window_relative, dilated_max, dilated_relative;
    };
    std::vector<ErrorRow> errors;         // random and local inputs
    Inputs small;                         // (32 × d), seeds 3, 4, 5
    std::size_t small_window = 8;
    std::vector<DilatedPair> small_pairs{{8, 1}, {32, 4}};
    Matrix output_full, output_streaming, output_window, output_dilated;  // (32 × d) each
};

LongSequences measure_long_sequences(const Settings& s, const Measure& measure);
