// Chapter 10 · the experiment: every kernel measured against n, and checked.
//
// The lesson gives a `Measure` (the time and the memory of one call, taken in a
// child process); the sweeps double n from 256 until a time budget or the memory
// runs out. The mathematics they measure is in math.hpp and
// common/math/long_attention.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "chapters/10_long_sequences/math.hpp"

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
    Inputs tiny;                                   // (8 × 4), seed 5
    OnlineTrace trace;                             // query 0 of `tiny`
    Matrix tiny_full;                              // (8 × 4) materialised attention of `tiny`
    std::size_t n_check = 0;                       // 1000 (not a multiple of the blocks) or --max-n
    double tiled_error = 0.0, causal_error = 0.0;  // streaming against materialised at n_check
    std::size_t n_error = 0;                       // 4096 or --max-n
    struct ErrorRow {
        std::string inputs;
        double window_max, window_relative, dilated_max, dilated_relative;
    };
    std::vector<ErrorRow> errors;  // random and local inputs
    Inputs small;                  // (32 × d), seeds 3, 4, 5
    std::size_t small_window = 8;
    std::vector<DilatedPair> small_pairs{{8, 1}, {32, 4}};
    Matrix output_full, output_streaming, output_window, output_dilated;  // (32 × d) each
};

LongSequences measure_long_sequences(const Settings& s, const Measure& measure);
