// Chapter 13 · the experiment (--measure): the time of one generated token, with
// the cache and recomputing the whole prefix, at several lengths n, and the numbers of
// the cost and memory steps. The lesson gives `measure` (a child process times the
// work); the mathematics is math.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
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

// The numbers of the lesson's cost, memory and measured steps. The cost table and --measure:
// one head of GPT-2 small (d_model 768, head width 64); the models' caches in 16-bit floats,
// as the models are served, after 4096 tokens.
struct DecodingCosts {
    static constexpr std::size_t d_model = 768, d = 64;
    static constexpr std::uint64_t bytes_per_number = 2, table_tokens = 4096;
    std::vector<TokenCost> tokens;        // token_cost at n = 16, 64, 256, 1024, 4096, 16384
    std::vector<ModelCache> models;       // model_caches of the model table
    std::vector<MeasuredToken> measured;  // at n = 256, 1024, 4096; empty when `measure` is empty
};
// `models`: the rows of data/kv_cache_models.csv (model_shape).
DecodingCosts decoding_costs(const Matrix& models, const Measure& measure);
