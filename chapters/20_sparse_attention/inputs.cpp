#include "chapters/20_sparse_attention/inputs.hpp"

#include <fmt/format.h>

void add_flags(CLI::App& cli, Flags& f) {
    const std::size_t n = 2 * CopyTaskSettings().half_length;
    cli.add_option("--window", f.window, fmt::format("w: each query reads the last w tokens, itself included (1 to {})", n))
        ->capture_default_str()->check(CLI::Range(std::size_t{1}, n).description(""));
    cli.add_option("--sinks", f.sinks, fmt::format("s: the first s tokens, read by every query (0 to {})", n - 1))
        ->capture_default_str()->check(CLI::Range(std::size_t{0}, n - 1).description(""));
    cli.add_option("--top-k", f.top_k, fmt::format("k: the keys each query keeps, by the indexer's score (1 to {})", n))
        ->capture_default_str()->check(CLI::Range(std::size_t{1}, n).description(""));
    cli.add_option("--rank", f.rank, fmt::format("r: the indexer's width, its scores the best rank-r copy of the "
                                                 "head's (1 to {})", CopyTaskSettings().d_model))
        ->capture_default_str()->check(CLI::Range(std::size_t{1}, CopyTaskSettings().d_model).description(""));
    cli.add_option("--seed", f.seed, "seed of the initial weights and of the sequences of every training (0 to 999999999)")
        ->capture_default_str()->check(CLI::Range(std::uint64_t{0}, std::uint64_t{999999999}).description(""));
    cli.add_option("--steps", f.steps, "Adam steps of every training (1 to 5000)")
        ->capture_default_str()->check(CLI::Range(1, 5000).description(""));
}

Variant chosen_variant(const Flags& f) {
    Variant v;
    v.window = f.window, v.sinks = f.sinks, v.top_k = f.top_k, v.indexer_rank = f.rank;
    return v;
}

CopyTaskSettings copy_task_settings(const Flags& f) {
    CopyTaskSettings s;
    s.steps = f.steps, s.seed = f.seed, s.heads = model_heads;
    return s;
}
