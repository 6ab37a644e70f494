// Chapter 10 · the experiment: every kernel measured against n, and checked.
//
// The lesson gives a `Measure` (the time and the memory of one call, taken in a
// child process); the sweeps double n from 256 until a time budget or the memory
// runs out. The mathematics they measure is in math.hpp and
// common/long_context/long_attention.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "chapters/10_long_sequences/math.hpp"
#include "common/numbers/matrix_list.hpp"

// One measurement, given by the lesson: the seconds of one call, the bytes it added (0: unknown).
struct Cost {
    double seconds = 0.0, bytes = 0.0;
};
using Measure = std::function<Cost(const std::function<void()>& work)>;

// How the lesson writes what it measured: "1.5 MiB" (— for 0: not measured), "n^2.01"; its
// times, "12.3 ms", with common/display/time_text.hpp.
std::string memory_text(double bytes);
std::string power(double exponent);

// One method measured at n = 256, 512, …
struct Sweep {
    std::string name;
    std::vector<double> n, seconds, bytes;
    // The slope over the points with n ≥ from (or the two longest, in a short sweep).
    double slope(const std::vector<double>& y, double from) const;
    // The points whose memory was measured, with `bytes` in MiB.
    Sweep memory_in_mib() const;
};

// The chapter's flags, and what checked_settings makes of them.
struct Settings {
    std::size_t max_n = 16384, d = 64, window = 256;
    AttentionBlocks blocks;
    std::string pairs_flag = "256:1,1024:4,4096:16";  // --pairs, parsed into `pairs`
    std::vector<DilatedPair> pairs;
    double budget_s = 8.0;
    bool streaming_only = false;
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
    std::uint64_t refused_bytes = 0;      // what it would need in all
    std::uint64_t refused_weights_bytes = 0;  // its n × n weights alone
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

    // The small input and its four outputs: rows "tokens" (t0 … t31), columns "dimensions".
    MatrixList matrices() const {
        return {{"Q", small.Q, "", "tokens", "dimensions"},
                {"K", small.K, "", "tokens", "dimensions"},
                {"V", small.V, "", "tokens", "dimensions"},
                {"output_full", output_full, "softmax(Q·Kᵀ/√d)·V", "tokens", "dimensions"},
                {"output_streaming", output_streaming, "tiled online softmax", "tokens", "dimensions"},
                {"output_window", output_window,
                 "each query: a window of " + std::to_string(small_window) + " keys", "tokens", "dimensions"},
                {"output_dilated", output_dilated, "LongNet pairs mixed", "tokens", "dimensions"}};
    }
};

LongSequences measure_long_sequences(const Settings& s, const Measure& measure);

// --streaming-only: streaming attention alone at n = --max-n, timed in this process.
struct StreamingOnly {
    Inputs in;                 // (n × d) each; the output has overwritten Q
    Matrix first_queries;      // (kept × d) the first rows of Q, kept to check their outputs
    double seconds = 0.0;      // the CPU time of the call
    double gflops = 0.0;       // 4·n²·d / seconds / 10⁹
    std::uint64_t peak = 0;    // the peak resident memory of this whole process (VmHWM)
    AttentionBlocks tile;      // the tiles, clamped to the sequence
};

StreamingOnly measure_streaming_only(const Settings& s);

// The flags' settings with --pairs parsed ("256:1,1024:4") and this machine's memory limit,
// once the guard has checked that even the streaming version fits at --max-n (Q, K, V and
// its output). A bad --pairs or a --max-n too long for the memory is an InputError.
Settings checked_settings(Settings s);

// One measurement of math.cpp, in a child process: its time and peak memory.
Cost measure_in_a_child(const std::function<void()>& work);
