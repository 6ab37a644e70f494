// Chapter 13 · the experiment (--measure): the time of one generated token, with
// the cache and recomputing the whole prefix, at several lengths n. The lesson
// gives `measure` (a child process times the work); the mathematics is math.hpp.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "chapters/13_kv_cache/math.hpp"

// Seconds per generated token, measured: `measure` times a piece of work.
using Measure = std::function<double(const std::function<void()>&)>;
struct MeasuredToken {
    std::size_t n = 0;
    double cached_s = 0, recomputed_s = 0;
    double difference = 0;  // max |cached output − recomputed output| of the token
    double flops_ratio = 0;  // FLOPs recomputing / FLOPs with the cache (token_cost)
};
std::vector<MeasuredToken> measure_per_token(const std::vector<std::size_t>& lengths, std::size_t d_model,
                                             std::size_t d, const Measure& measure);
