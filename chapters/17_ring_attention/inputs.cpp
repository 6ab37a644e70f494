#include "chapters/17_ring_attention/inputs.hpp"

#include <fmt/format.h>

void add_flags(CLI::App& cli, Flags& f) {
    cli.add_option("--n", f.n, "tokens (queries, keys and values), split over the ranks (at least one each)")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{1}, std::size_t{16384}));
    cli.add_option("--d", f.d, "width of queries, keys and values (one head)")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{1}, std::size_t{256}));
    cli.add_option("--seed", f.seed, "seed of Q, K and V (the same on every rank)")->capture_default_str();
    cli.add_flag("--causal", f.causal, "causal attention: query i sees keys 0 … i");
    cli.add_flag("--measure", f.measure, "time the ring (a step of its own; the times differ from run to run)");
    cli.add_flag("--allow-many-ranks", f.allow_many_ranks,
                 fmt::format("let the launcher start more than {} processes per core (./tutorial run 17 --ranks P)",
                             ranks_per_core));
}

void require_a_query_per_rank(const Mpi& mpi, const Flags& f) {
    if (f.n < mpi.size())
        mpi.refuse(fmt::format("--n {} is fewer tokens than the {} ranks: each rank needs a query", f.n, mpi.size()));
}
