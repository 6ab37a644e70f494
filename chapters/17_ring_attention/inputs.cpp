#include "chapters/17_ring_attention/inputs.hpp"

#include <fmt/format.h>

#include "common/lesson/lesson.hpp"

void add_flags(Lesson& lesson, Flags& f) {
    lesson.option("--n", f.n, "tokens (queries, keys and values), split over the ranks (at least one each)",
                  Range{1, 16384});
    lesson.option("--d", f.d, "width of queries, keys and values (one head)", Range{1, 256});
    lesson.option("--seed", f.seed, "seed of Q, K and V (the same on every rank)");
    lesson.flag("--causal", f.causal, "causal attention: query i sees keys 0 … i");
    lesson.flag("--measure", f.measure, "time the ring (a step of its own; the times differ from run to run)");
    lesson.flag("--allow-many-ranks", f.allow_many_ranks,
                fmt::format("let the launcher start more than {} processes per core (./tutorial run 17 --ranks P)",
                            ranks_per_core));
}

void require_a_query_per_rank(const Mpi& mpi, const Flags& f) {
    if (f.n < mpi.size())
        mpi.refuse(fmt::format("--n {} is fewer tokens than the {} ranks: each rank needs a query", f.n, mpi.size()));
}
