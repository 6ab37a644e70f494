// Chapter 17 · the ring: P processes pass blocks of keys and values round a ring (Open MPI).
//
// This is the only file of the chapter that speaks MPI; the mathematics it calls (one
// block's partial softmax result, the merge of two) is math.hpp's and sees no MPI.
//
// Every rank builds the same Q, K, V from the seed and keeps its own rows (math.hpp's
// rows_of). At step t = 0 … P − 1 rank r holds the K/V block of rank (r − t) mod P: it
// starts sending that block to rank r + 1 and receiving the next from rank r − 1
// (MPI_Isend / MPI_Irecv), computes its queries against the block it holds meanwhile,
// merges the partial result into its running one, then waits for the exchange. After the
// last step it divides by ℓ; rank 0 gathers everything the lesson shows.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "chapters/17_ring_attention/math.hpp"

// MPI for the life of the program: join() starts it (MPI_Init), the destructor ends it
// (MPI_Finalize), after the lesson has written its output files.
class Mpi {
public:
    Mpi() = default;
    Mpi(const Mpi&) = delete;
    Mpi& operator=(const Mpi&) = delete;
    ~Mpi();
    // Whether mpirun (or another MPI launcher) started this process.
    static bool launched();
    // Before anything prints (--help, the lesson): on every process but rank 0, as the
    // launcher numbered them, stdout goes to /dev/null, and so does stderr until join() (a bad
    // flag is said once, by rank 0, not once per process). Rank 0 alone prints; started by the
    // launcher, it writes straight to the launcher's stdout, not through mpirun, so that a
    // reader who goes away (| head) ends it quietly, as it ends every chapter.
    static void print_on_rank_0_only();
    // MPI_Init (and the same for stdout, by MPI's own numbering); stderr is back.
    void join();
    // A bad input found once the ranks are known (say, fewer tokens than ranks): every rank
    // stops with exit code 2, and only rank 0 says why (one line, not P).
    [[noreturn]] void refuse(const std::string& why) const;
    std::size_t rank() const { return rank_; }
    std::size_t size() const { return size_; }

private:
    bool joined_ = false;
    std::size_t rank_ = 0, size_ = 1;
};

// How many processes to start, from the text of --ranks (TUTORIAL_RANKS): a whole number from
// 1 to n (every rank needs a query), and at most ranks_per_core per core of this machine
// unless allow_many (more would only take turns on the cores). Checked once, in one process,
// before mpirun starts any; a bad count is an InputError (one line, exit code 2).
constexpr std::size_t ranks_per_core = 4;
std::size_t ranks_to_start(const std::string& text, std::size_t n, bool allow_many);
// The cores this process may run on (as nproc counts them).
std::size_t usable_cores();
// The program started alone, not by mpirun. As the launcher's check, in one process before
// mpirun starts any (TUTORIAL_CHECK_RANKS set), it checks that number of processes
// (ranks_to_start) and returns; otherwise an InputError says how to start it.
void check_before_launch(const std::string& program, std::size_t n, bool allow_many);

// What the ring did, gathered on rank 0 (the other ranks hold only their own row of each).
struct RingRun {
    Layout layout = Layout::contiguous;
    std::size_t P = 1;
    Matrix output;                                               // (n × d) rank 0: every rank's O / ℓ in place
    std::vector<std::vector<std::size_t>> held;                  // [rank][step] whose block it merged
    std::vector<std::vector<float>> m, l;                        // [rank][step] its first query's m and ℓ after it
    std::vector<std::vector<std::uint64_t>> pairs;               // [rank][step] (query, key) pairs computed
    std::vector<std::uint64_t> bytes_sent;                       // [rank] K and V blocks sent, in bytes
    std::vector<std::uint64_t> most_floats_held;                 // [rank] the most its K/V buffers held at once
    std::vector<double> seconds, compute_seconds, wait_seconds;  // [rank] the ring's wall time, split

    // The pairs rank r computed over the whole ring, and the ring's time on its slowest rank.
    std::uint64_t pairs_of(std::size_t r) const { return std::accumulate(pairs[r].begin(), pairs[r].end(), 0ull); }
    double slowest() const { return *std::max_element(seconds.begin(), seconds.end()); }
};

// Ring attention of Q, K, V (n × d each, the same on every rank) over the ranks of `mpi`.
RingRun ring_attention(const Mpi& mpi, const Matrix& Q, const Matrix& K, const Matrix& V, Layout layout, bool causal);

// The ring with each layout, on the same inputs.
struct Rings {
    RingRun contiguous, striped;

    // Their outputs as gathered on rank 0, (n × d): rows "tokens", columns "dimensions".
    MatrixList matrices() const {
        return {{"output", contiguous.output, "ring attention, gathered", "tokens", "dimensions"},
                {"output_striped", striped.output, "ring attention, striped rows, gathered", "tokens", "dimensions"}};
    }
};
Rings both_rings(const Mpi& mpi, const RingInputs& in, bool causal);
