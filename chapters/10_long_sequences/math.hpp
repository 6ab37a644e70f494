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
// segments. The kernels are common/long_context/long_attention.hpp (experiment.hpp measures
// them); this file writes the online softmax for one query, and a window's keys.
#pragma once

#include <cstdint>
#include <vector>

#include "common/long_context/long_attention.hpp"
#include "common/numbers/matrix.hpp"

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

// The keys query i of n sees in a sliding window of w: [b, b + w), b = i − ⌊w/2⌋ shifted
// inward at the ends so that every query sees exactly w keys; every key when w ≥ n.
std::vector<std::size_t> window_keys(std::size_t i, std::size_t n, std::size_t w);

// ‖a − b‖ / ‖b‖ over all entries.
double relative_error(const Matrix& a, const Matrix& b);
// The least-squares slope of log y against log x: y ∝ x^slope (NaN with < 2 points).
double loglog_slope(const std::vector<double>& x, const std::vector<double>& y);
