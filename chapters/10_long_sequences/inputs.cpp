#include "chapters/10_long_sequences/inputs.hpp"

#include <cstddef>

void add_flags(CLI::App& cli, Settings& s) {
    cli.add_option("--max-n", s.max_n, "the longest sequence measured (the time budget may stop earlier)")
        ->capture_default_str()->check(CLI::Range(std::size_t{256}, std::size_t{1} << 30));
    cli.add_option("--d", s.d, "width of queries, keys and values (one head)")
        ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{4096}));
    cli.add_option("--block-q", s.blocks.q, "queries per tile of streaming attention")
        ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{65536}));
    cli.add_option("--block-k", s.blocks.k, "keys per tile of streaming attention")
        ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{65536}));
    cli.add_option("--window", s.window, "keys each query sees in sliding-window attention")
        ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30));
    cli.add_option("--pairs", s.pairs_flag, "LongNet's (segment w : dilation r) pairs, comma-separated")
        ->capture_default_str();
    cli.add_option("--budget-s", s.budget_s, "seconds the length sweeps may take (about; the whole run takes more)")
        ->capture_default_str()->check(CLI::Range(0.1, 3600.0));
    cli.add_flag("--streaming-only", s.streaming_only,
                 "measure streaming attention alone at --max-n (its time and peak memory), nothing else");
}
