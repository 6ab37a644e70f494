// Chapter 17 · the lesson's inputs: its flags, each with its range, and their check against
// the number of ranks once MPI has started.
#pragma once

#include <cstddef>
#include <cstdint>

#include "chapters/17_ring_attention/ring.hpp"

class Lesson;  // common/lesson/lesson.hpp: the chapter's flags are declared in it

struct Flags {
    std::size_t n = 16, d = 8;
    std::uint64_t seed = 17;
    bool causal = false, measure = false;
    bool allow_many_ranks = false;  // the launcher's: more than ranks_per_core processes per core
};

// --n (1 to 16384), --d (1 to 256), --seed, --causal, --measure, --allow-many-ranks.
void add_flags(Lesson& lesson, Flags& f);

// Every rank needs a query: fewer tokens than ranks stops every rank (Mpi::refuse).
void require_a_query_per_rank(const Mpi& mpi, const Flags& f);
