#include "chapters/17_ring_attention/ring.hpp"

#include <fcntl.h>
#include <malloc.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <utility>

#include <fmt/format.h>

// MPI's C API only: without these, mpi.h included from C++ pulls in the old C++ bindings,
// which need a library of their own (libmpi_cxx).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include "common/long_context/long_attention.hpp"
#include "common/machine/environment.hpp"
#include "common/numbers/input_error.hpp"

Mpi::~Mpi() {
    if (joined_) MPI_Finalize();
}

bool Mpi::launched() {
    // Open MPI's mpirun sets OMPI_COMM_WORLD_SIZE, PMIx-based launchers PMIX_RANK,
    // MPICH's Hydra PMI_SIZE.
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
        if (std::getenv(name)) return true;
    return false;
}

namespace {

int stderr_before_join = -1;  // a copy of stderr while the other ranks keep quiet, else −1

// Points the file descriptor `fd` at `path`; on failure leaves it as it was. (Without
// O_NONBLOCK, opening a pipe that has no reader could wait for one.)
void redirect(int fd, const std::string& path) {
    const int to = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NONBLOCK);
    if (to < 0) return;
    ::fcntl(to, F_SETFL, ::fcntl(to, F_GETFL) & ~O_NONBLOCK);
    ::dup2(to, fd);
    ::close(to);
}

#if defined(__GLIBC__)
// Rank 0's stdout once it writes to a pipe itself: what a write cannot deliver because the reader
// has gone (| head) is dropped, and the run goes on to its end. Dying of SIGPIPE instead would
// leave the other ranks waiting in the ring, and Open MPI 5's mpirun (whose -q is gone) would
// frame a banner about the signal on stderr.
ssize_t write_or_drop(void* /*cookie*/, const char* data, std::size_t size) {
    static bool reader_gone = false;
    for (std::size_t done = 0; done < size && !reader_gone;) {
        const ssize_t n = ::write(STDOUT_FILENO, data + done, size - done);
        if (n >= 0) done += std::size_t(n);
        else if (errno == EPIPE) reader_gone = true;
        else if (errno != EINTR) return -1;
    }
    return ssize_t(size);
}

void drop_what_a_gone_reader_misses() {
    std::signal(SIGPIPE, SIG_IGN);  // a write to the gone reader's pipe fails with EPIPE instead
    FILE* pipe_out = ::fopencookie(nullptr, "w", cookie_io_functions_t{nullptr, write_or_drop, nullptr, nullptr});
    if (!pipe_out) return;
    std::fflush(stdout);
    stdout = pipe_out;
}
#else
void drop_what_a_gone_reader_misses() {}
#endif

}  // namespace

void Mpi::print_on_rank_0_only() {
    const char* rank = nullptr;
    for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
        if ((rank = std::getenv(name))) break;
    if (!rank) return;
    if (std::string(rank) != "0") {
        if (!std::freopen("/dev/null", "w", stdout)) std::fclose(stdout);
        // A bad flag would be said by every rank: until join(), rank 0 says it alone.
        stderr_before_join = ::dup(STDERR_FILENO);
        redirect(STDERR_FILENO, "/dev/null");
        // A rank that stops before join() (a bad flag given to mpirun directly) leaves a moment
        // first: Open MPI 5's mpirun stops the other ranks as soon as one exits non-zero, and
        // rank 0 could be stopped before its line is out.
        std::atexit([] {
            if (stderr_before_join >= 0) std::this_thread::sleep_for(std::chrono::milliseconds(500));
        });
        return;
    }
    // mpirun passes on what its processes print; when its own reader goes away (| head) it
    // aborts loudly, and sometimes crashes. The launcher names itself (it became mpirun, the
    // parent of its processes on this machine): rank 0 writes to the same pipe or terminal
    // directly. Not to a file: opened anew, it has an offset of its own, and what the shell
    // writes after the run (`( ./tutorial run 17; echo ) > file`) would land over the lesson;
    // mpirun writes through the shell's own offset.
    const char* launcher = environment(Setting::ring_stdout);
    const std::string launcher_stdout = launcher ? fmt::format("/proc/{}/fd/1", launcher) : "";
    struct stat target {};
    if (!launcher || std::to_string(::getppid()) != launcher || ::stat(launcher_stdout.c_str(), &target) != 0) return;
    if (!S_ISREG(target.st_mode)) {
        redirect(STDOUT_FILENO, launcher_stdout);
        if (S_ISFIFO(target.st_mode)) drop_what_a_gone_reader_misses();
    }
    // mpirun hands rank 0 a terminal of its own (a pty) to read from; what reads it is a file:
    // no colour unless asked (--color always).
    else setenv("NO_COLOR", "1", 0);
}

void Mpi::join() {
    MPI_Init(nullptr, nullptr);
    joined_ = true;
    if (stderr_before_join >= 0) {
        ::dup2(stderr_before_join, STDERR_FILENO);
        ::close(stderr_before_join);
        stderr_before_join = -1;
    }
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    rank_ = static_cast<std::size_t>(rank);
    size_ = static_cast<std::size_t>(size);
    if (rank_ != 0 && !std::freopen("/dev/null", "w", stdout)) std::fclose(stdout);
    set_blas_threads(1);  // P processes share the cores: one BLAS thread each
    // The blocks' products allocate and free a few MiB per tile of queries. glibc would hand
    // that memory back to the system and fault it in again each time (a first ring slower
    // than the next by several times): keep up to 256 MiB of freed memory for reuse instead.
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

void Mpi::refuse(const std::string& why) const {
    if (rank_ != 0 && !std::freopen("/dev/null", "w", stderr)) std::fclose(stderr);
    throw InputError(why);
}

std::size_t usable_cores() {
    cpu_set_t cores;
    CPU_ZERO(&cores);
    if (::sched_getaffinity(0, sizeof cores, &cores) == 0) return std::size_t(std::max(1, CPU_COUNT(&cores)));
    return std::max(1u, std::thread::hardware_concurrency());
}

std::size_t ranks_to_start(const std::string& text, std::size_t n, bool allow_many) {
    const std::size_t cores = usable_cores();
    const std::size_t most = allow_many ? n : std::min(n, ranks_per_core * cores);
    const std::string flag = fmt::format("--ranks {} (TUTORIAL_RANKS)", text);
    std::size_t P = 0;
    bool whole = !text.empty();
    for (const char c : text) {
        if (c < '0' || c > '9') whole = false;
        else if (P <= n) P = P * 10 + std::size_t(c - '0');  // stops growing past n: no wrap-around
    }
    if (!whole || P == 0)
        throw InputError(fmt::format("{}: the number of processes must be a whole number from 1 to {}", flag, most));
    if (P > n)
        throw InputError(fmt::format("{}: more processes than the {} token{} of --n (every rank needs a query); "
                                     "at most {}",
                                     flag, n, n == 1 ? "" : "s", most));
    if (P > most)
        throw InputError(fmt::format("{}: more than {} processes per core ({} core{} here) only take turns on the "
                                     "cores; at most {}, or add --allow-many-ranks",
                                     flag, ranks_per_core, cores, cores == 1 ? "" : "s", most));
    return P;
}

namespace {

// A block of keys and values as it travels: K's rows (b × d), then V's rows (b × d).
std::vector<float> pack(const Matrix& K, const Matrix& V) {
    std::vector<float> buffer;
    buffer.reserve(K.size() + V.size());  // exactly one block: the lesson counts what the ring holds
    buffer.insert(buffer.end(), K.begin(), K.end());
    buffer.insert(buffer.end(), V.begin(), V.end());
    return buffer;
}

std::pair<Matrix, Matrix> unpack(const std::vector<float>& buffer, std::size_t b, std::size_t d) {
    Matrix K = Matrix::from_shape({b, d}), V = Matrix::from_shape({b, d});
    std::copy(buffer.begin(), buffer.begin() + long(b * d), K.begin());
    std::copy(buffer.begin() + long(b * d), buffer.end(), V.begin());
    return {K, V};
}

// Gathers one value per step from every rank: [rank][step] on rank 0.
template <typename T>
std::vector<std::vector<T>> gather_steps(const std::vector<T>& mine, MPI_Datatype type, std::size_t P) {
    std::vector<T> all(P * mine.size());
    MPI_Gather(mine.data(), int(mine.size()), type, all.data(), int(mine.size()), type, 0, MPI_COMM_WORLD);
    std::vector<std::vector<T>> out(P);
    for (std::size_t r = 0; r < P; ++r)
        out[r].assign(all.begin() + long(r * mine.size()), all.begin() + long((r + 1) * mine.size()));
    return out;
}

// Rank 0 receives every rank's output rows and puts them where they belong.
Matrix gather_output(const Matrix& mine, Layout layout, std::size_t n, std::size_t P) {
    const std::size_t d = cols(mine);
    std::vector<int> counts(P), offsets(P);
    for (std::size_t r = 0, at = 0; r < P; at += rows_of(layout, r, n, P).size() * d, ++r) {
        counts[r] = int(rows_of(layout, r, n, P).size() * d);
        offsets[r] = int(at);
    }
    std::vector<float> all(n * d);
    MPI_Gatherv(mine.data(), int(mine.size()), MPI_FLOAT, all.data(), counts.data(), offsets.data(), MPI_FLOAT, 0,
                MPI_COMM_WORLD);
    Matrix output = xt::zeros<float>({n, d});
    for (std::size_t r = 0; r < P; ++r) {
        const Rows at = rows_of(layout, r, n, P);
        for (std::size_t i = 0; i < at.size(); ++i)
            for (std::size_t c = 0; c < d; ++c) output(at[i], c) = all[std::size_t(offsets[r]) + i * d + c];
    }
    return output;
}

}  // namespace

RingRun ring_attention(const Mpi& mpi, const Matrix& Q, const Matrix& K, const Matrix& V, Layout layout, bool causal) {
    const std::size_t n = rows(Q), d = cols(Q), P = mpi.size(), r = mpi.rank();
    const int right = int((r + 1) % P), left = int((r + P - 1) % P);
    const Rows mine = rows_of(layout, r, n, P);
    const Matrix Q_r = take_rows(Q, mine);  // (b × d)
    std::vector<float> current = pack(take_rows(K, mine), take_rows(V, mine)), next;
    // Both buffers sized once for the largest block (⌈n/P⌉ rows of K and of V): blocks of
    // uneven sizes then never make a buffer grow (a vector grows by doubling).
    const std::size_t largest = 2 * ((n + P - 1) / P) * d;
    current.reserve(largest);
    next.reserve(largest);
    Partial running = empty_partial(mine.size(), cols(V));
    std::vector<std::uint64_t> held(P), pairs(P, 0);
    std::vector<float> m(P), l(P);
    std::uint64_t bytes = 0, most_held = 0;  // most_held: floats of K and V in the two buffers
    double compute = 0.0, wait = 0.0;
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (std::size_t t = 0; t < P; ++t) {
        const std::size_t s = owner_at(r, t, P);
        const Rows keys = rows_of(layout, s, n, P);
        // 1. Pass the block on while computing with it (not after the last step).
        MPI_Request requests[2];
        if (t + 1 < P) {
            next.resize(rows_of(layout, owner_at(r, t + 1, P), n, P).size() * 2 * d);
            MPI_Irecv(next.data(), int(next.size()), MPI_FLOAT, left, int(t), MPI_COMM_WORLD, &requests[0]);
            MPI_Isend(current.data(), int(current.size()), MPI_FLOAT, right, int(t), MPI_COMM_WORLD, &requests[1]);
            bytes += current.size() * sizeof(float);
        }
        most_held = std::max<std::uint64_t>(most_held, current.capacity() + next.capacity());
        // 2. Merge this block's partial result (skipped when causal hides every key of it).
        const double computing = MPI_Wtime();
        if (!causal || keys.front() <= mine.back()) {
            const auto [K_s, V_s] = unpack(current, keys.size(), d);
            running = merge(running, block_partial(Q_r, mine, K_s, V_s, keys, causal, pairs[t]));
        }
        compute += MPI_Wtime() - computing;
        held[t] = s;
        m[t] = running.m(0);
        l[t] = running.l(0);
        // 3. Wait until the next block has arrived and this one has left.
        if (t + 1 < P) {
            const double waiting = MPI_Wtime();
            MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
            wait += MPI_Wtime() - waiting;
            std::swap(current, next);
        }
    }
    const double seconds = MPI_Wtime() - start;

    RingRun run;
    run.layout = layout;
    run.P = P;
    run.output = gather_output(normalise(running), layout, n, P);
    const auto held_all = gather_steps(held, MPI_UINT64_T, P);
    for (const auto& row : held_all) run.held.emplace_back(row.begin(), row.end());
    run.m = gather_steps(m, MPI_FLOAT, P);
    run.l = gather_steps(l, MPI_FLOAT, P);
    run.pairs = gather_steps(pairs, MPI_UINT64_T, P);
    for (const auto& b : gather_steps(std::vector<std::uint64_t>{bytes}, MPI_UINT64_T, P))
        run.bytes_sent.push_back(b[0]);
    for (const auto& h : gather_steps(std::vector<std::uint64_t>{most_held}, MPI_UINT64_T, P))
        run.most_floats_held.push_back(h[0]);
    const auto times = gather_steps(std::vector<double>{seconds, compute, wait}, MPI_DOUBLE, P);
    for (const auto& t : times) {
        run.seconds.push_back(t[0]);
        run.compute_seconds.push_back(t[1]);
        run.wait_seconds.push_back(t[2]);
    }
    return run;
}

void check_before_launch(const std::string& program, std::size_t n, bool allow_many) {
    if (const char* ranks = environment(Setting::ring_check_ranks)) {
        ranks_to_start(ranks, n, allow_many);
        return;
    }
    throw InputError(fmt::format("runs as several processes: start it with `./tutorial run 17 [--ranks P]` or "
                                 "`mpirun -n 4 {}` (see docs/ch17_ring_attention.md)",
                                 program));
}

Rings both_rings(const Mpi& mpi, const RingInputs& in, bool causal) {
    Rings rings;
    rings.contiguous = ring_attention(mpi, in.Q, in.K, in.V, Layout::contiguous, causal);
    rings.striped = ring_attention(mpi, in.Q, in.K, in.V, Layout::striped, causal);
    return rings;
}
