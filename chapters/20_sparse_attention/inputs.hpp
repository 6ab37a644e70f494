// Chapter 20 · the lesson's inputs: its flags, each with its range, read into the settings
// of the training (chapter 16's copy task) and of the variants.
#pragma once

#include <cstddef>
#include <string>

#include "chapters/20_sparse_attention/math.hpp"

class Lesson;  // common/lesson/lesson.hpp: the chapter's flags are declared in it

struct Flags {
    std::size_t window = default_window;  // --window: w, the keys of the rolling part (1 to n)
    std::size_t sinks = default_sinks;    // --sinks: s, the first keys always kept (0 to n − 1)
    std::size_t top_k = default_top_k;    // --top-k: k, the keys each query keeps (1 to n)
    std::size_t rank = default_rank;      // --rank: r, the indexer's width (1 to d_model)
    std::uint64_t seed = 20;              // --seed: the weights and sequences of every training
    int steps = default_steps;            // --steps: Adam steps of every training
};

// --window, --sinks, --top-k, --rank, --seed and --steps; --text refused (the models never read text).
void add_flags(Lesson& lesson, Flags& f);

// The window, sinks, k and r the flags give, once they are parsed.
Variant chosen_variant(const Flags& f);

// Chapter 16's copy task with --steps and --seed, and model_heads heads per layer.
CopyTaskSettings copy_task_settings(const Flags& f);
