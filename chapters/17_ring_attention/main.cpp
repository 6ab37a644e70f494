// Chapter 17 · Ring attention: one head across several processes
//
// The lesson: P processes (Open MPI ranks) each hold n/P queries and pass blocks of keys
// and values round a ring (ring.cpp), merging partial softmax results (math.cpp) until
// every query has seen every key; the timeline, one query's running max and denominator,
// the bytes and FLOPs each rank spends, how their ratio grows with n, and the causal
// imbalance that the striped layout evens out; checked against chapter 10's materialised
// attention and a loop in double. Only rank 0 prints: it gathers what it shows.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/17_ring_attention/math.hpp"
#include "chapters/17_ring_attention/ring.hpp"
#include "common/lesson/attention_tolerance.hpp"
#include "common/lesson/lesson.hpp"
#include "common/lesson/text_table.hpp"
#include "common/math/input_error.hpp"
#include "common/math/long_attention.hpp"
#include "common/math/random.hpp"

namespace {

struct Flags {
    std::size_t n = 16, d = 8;
    std::uint64_t seed = 17;
    bool causal = false, measure = false;
    bool allow_many_ranks = false;  // the launcher's: more than ranks_per_core processes per core
};

// Everything the steps show, computed once (rank 0 after the rings).
struct Shown {
    const Flags& f;
    std::size_t P;
    Matrix Q, K, V;                   // (n × d) each, from the seed, the same on every rank
    RingRun contiguous, striped;      // the ring with each layout
    Matrix reference;                 // (n × d) chapter 10's materialised attention
    Matrix in_double;                 // (n × d) the loops in double (empty when n is large)
    std::vector<SoftmaxStats> first;  // [rank] its first query's m and ℓ, in double
    std::vector<std::uint64_t> causal_contiguous, causal_striped;  // [rank] pairs of a causal ring
};

constexpr std::size_t max_n_in_double = 4096;  // beyond it the loops in double take minutes

std::string rank_name(std::size_t r) { return fmt::format("r{}", r); }

// "0–3", or "1, 5, 9, 13", or "1, 5, …, 16381" (a rank's rows, short).
std::string rows_text(const Rows& at, Layout layout) {
    if (at.empty()) return "none";
    if (layout == Layout::contiguous)
        return at.size() == 1 ? fmt::format("{}", at[0]) : fmt::format("{}–{}", at.front(), at.back());
    if (at.size() <= 4) return fmt::format("{}", fmt::join(at, ", "));
    return fmt::format("{}, {}, …, {}", at[0], at[1], at.back());
}

// The ranks shown in the wide tables: all when P ≤ 6, else the first 3 and the last.
std::vector<std::size_t> shown_ranks(std::size_t P) {
    std::vector<std::size_t> ranks;
    for (std::size_t r = 0; r < P; ++r)
        if (P <= 6 || r < 3 || r + 1 == P) ranks.push_back(r);
    return ranks;
}

void show_split(Lesson& lesson, const Shown& s) {
    const std::size_t n = s.f.n;
    lesson.say(fmt::format(
        "n = {} tokens of width d = {}, one head, P = {} ranks (processes). Every rank draws the\n"
        "same Q, K, V from seed {} and keeps only its rows: its queries, and its block of keys\n"
        "and values. {}\nContiguous: rank r holds a run of rows; striped: rows r, r + P, r + 2P, ….",
        n, s.f.d, s.P, s.f.seed,
        n % s.P == 0
            ? fmt::format("Each holds b = n/P = {} rows.", n / s.P)
            : fmt::format("{} does not divide by {}: the first {} ranks hold one row more.", n, s.P, n % s.P)));
    std::vector<TextRow> body;
    for (std::size_t r = 0; r < s.P; ++r)
        body.push_back({rank_name(r), rows_text(rows_of(Layout::contiguous, r, n, s.P), Layout::contiguous),
                        rows_text(rows_of(Layout::striped, r, n, s.P), Layout::striped)});
    lesson.table({"rank", "contiguous rows", "striped rows"}, body);
    lesson.show("Q", s.Q, ShowAs().labels(numbered("t", n), numbered("d", s.f.d)).decimals(2));
    lesson.keep_for_dump("K", s.K, numbered("t", n), numbered("d", s.f.d));
    lesson.keep_for_dump("V", s.V, numbered("t", n), numbered("d", s.f.d));
}

void show_timeline(Lesson& lesson, const Shown& s) {
    const RingRun& run = s.contiguous;
    lesson.say(
        fmt::format("At step t rank r holds the K/V block that rank (r − t) mod P started with, merges it\n"
                    "into its running result, and passes it to rank r + 1 while the next arrives from r − 1.\n"
                    "A cell names the rank whose block is merged{}.\nAfter P − 1 = {} pass{} every rank has seen every "
                    "block once (contiguous layout;\nstriped runs the same schedule).",
                    s.f.causal ? "; \"(skip)\": causal attention hides all of it" : "", s.P - 1, s.P == 2 ? "" : "es"));
    std::vector<TextRow> body;
    for (std::size_t t = 0; t < s.P; ++t) {
        TextRow row{fmt::format("{}", t)};
        for (std::size_t r = 0; r < s.P; ++r)
            row.push_back(fmt::format("{}{}", rank_name(run.held[r][t]), run.pairs[r][t] == 0 ? " (skip)" : ""));
        body.push_back(row);
    }
    TextRow header{"step"};
    for (std::size_t r = 0; r < s.P; ++r) header.push_back(rank_name(r));
    lesson.table(header, body);
}

void show_running(Lesson& lesson, const Shown& s) {
    const RingRun& run = s.contiguous;
    lesson.say(
        fmt::format("Each rank's first query, as blocks arrive: its running max m and denominator ℓ (\"m / ℓ\").\n"
                    "When a block brings a larger score, m jumps and the old ℓ is rescaled by exp(m_old − m)\n"
                    "before the block's own terms are added: the merge of two partial results,\n"
                    "  m = max(m_a, m_b), α = exp(m_a − m), β = exp(m_b − m), ℓ = α·ℓ_a + β·ℓ_b, O = α·O_a + β·O_b\n"
                    "(m, ℓ of shape (b), O of shape (b × d)). The last row is the whole softmax's m and ℓ."));
    const std::vector<std::size_t> ranks = shown_ranks(s.P);
    std::vector<TextRow> body;
    for (std::size_t t = 0; t < s.P; ++t) {
        TextRow row{fmt::format("{}", t)};
        for (const std::size_t r : ranks)
            row.push_back(run.l[r][t] == 0.0f ? "−∞ / 0" : fmt::format("{:.3f} / {:.3f}", run.m[r][t], run.l[r][t]));
        body.push_back(row);
    }
    TextRow header{"step"};
    for (const std::size_t r : ranks)
        header.push_back(fmt::format("{} (t{})", rank_name(r), rows_of(Layout::contiguous, r, s.f.n, s.P).front()));
    lesson.table(header, body);
    if (ranks.size() < s.P) lesson.say_under(fmt::format("(ranks 3 to {} not shown)", s.P - 2));
}

void show_output(Lesson& lesson, const Shown& s) {
    lesson.say(
        fmt::format("Each rank divides O by ℓ and sends its rows to rank 0, which puts them in place:\n"
                    "softmax(Q · Kᵀ / √d{}) · V. The ring held at most two blocks of K and V on a rank:\n"
                    "the one it computes with and the one arriving.",
                    s.f.causal ? " + causal mask" : ""));
    lesson.show("output", s.contiguous.output,
                ShowAs("ring attention, gathered").labels(numbered("t", s.f.n), numbered("d", s.f.d)));
    lesson.keep_for_dump("output_striped", s.striped.output, numbered("t", s.f.n), numbered("d", s.f.d));
}

void show_traffic(Lesson& lesson, const Shown& s) {
    const std::size_t n = s.f.n, d = s.f.d;
    lesson.say(
        fmt::format("Every rank sends P − 1 blocks of K and V: (P − 1)·2·(n/P)·d·4 bytes in float32, and\n"
                    "computes 4·d FLOPs per (query, key) pair it sees (Q·Kᵀ and P·V, 2 per multiply–add).{}",
                    n % s.P == 0 ? fmt::format(" Here\n({} − 1)·2·{}·{}·4 = {} bytes per rank.", s.P, n / s.P, d,
                                               grouped((s.P - 1) * block_bytes(n / s.P, d)))
                                 : "\nWith uneven blocks the bytes differ by rank."));
    std::vector<TextRow> body;
    for (std::size_t r = 0; r < s.P; ++r) {
        std::uint64_t pairs = 0;
        for (const std::uint64_t p : s.contiguous.pairs[r]) pairs += p;
        body.push_back({rank_name(r), fmt::format("{}", s.P - 1), grouped(s.contiguous.bytes_sent[r]), grouped(pairs),
                        grouped(std::uint64_t(block_flops(pairs, d)))});
    }
    lesson.table({"rank", "blocks sent", "bytes sent", "pairs", "FLOPs"}, body);
}

void show_scaling(Lesson& lesson, const Shown& s) {
    const std::size_t P = std::max<std::size_t>(s.P, 2), d = s.f.d;
    lesson.say(
        fmt::format("One step moves 2·b·d·4 bytes and computes 4·b·b·d FLOPs (b = n/P): b/2 FLOPs per byte.\n"
                    "The next block's transfer hides behind the current block's compute when a rank's\n"
                    "FLOP/s divided by its link's bytes/s is below b/2: ring attention pays off only when\n"
                    "blocks are large. At P = {}, d = {}:",
                    P, d));
    std::vector<TextRow> body;
    for (std::uint64_t n = 1024; n <= (1u << 20); n *= 4) {
        const std::uint64_t b = n / P;
        body.push_back({grouped(n), grouped(b), grouped(block_bytes(b, d)),
                        grouped(std::uint64_t(block_flops(b * b, d))), grouped(b / 2)});
    }
    lesson.table({"n", "b = n/P", "bytes per step", "FLOPs per step", "FLOPs per byte"}, body);
}

void show_balance(Lesson& lesson, const Shown& s) {
    lesson.say(fmt::format(
        "Causal attention: query i sees keys j ≤ i. With contiguous rows, rank 0's queries come first\n"
        "and see almost nothing, rank P − 1's see everything: it works up to 2P − 1 times as long\n"
        "as rank 0, and the others wait. Striped rows give every rank early and late queries.\nPairs per rank{}:",
        s.f.causal ? " (what this --causal run computed)" : " if this run were --causal"));
    std::vector<TextRow> body;
    for (std::size_t r = 0; r < s.P; ++r)
        body.push_back({rank_name(r), grouped(s.causal_contiguous[r]), grouped(s.causal_striped[r])});
    const auto spread = [](const std::vector<std::uint64_t>& w) {
        return fmt::format("{:.2f}", double(*std::max_element(w.begin(), w.end())) /
                                         double(std::max<std::uint64_t>(1, *std::min_element(w.begin(), w.end()))));
    };
    body.push_back({"max/min", spread(s.causal_contiguous), spread(s.causal_striped)});
    lesson.table({"rank", "contiguous", "striped"}, body);
}

void show_measured(Lesson& lesson, const Shown& s) {
    lesson.say(
        fmt::format("Wall time of the ring (after a barrier, until the last block is merged), split into\n"
                    "computing and waiting for blocks. P = {} process{} on this machine's cores.",
                    s.P, s.P == 1 ? "" : "es"));
    std::vector<TextRow> body;
    for (const RingRun* run : {&s.contiguous, &s.striped})
        for (std::size_t r = 0; r < s.P; ++r)
            body.push_back({run == &s.contiguous ? "contiguous" : "striped", rank_name(r),
                            fmt::format("{:.3f}", run->seconds[r]), fmt::format("{:.3f}", run->compute_seconds[r]),
                            fmt::format("{:.3f}", run->wait_seconds[r])});
    lesson.table({"layout", "rank", "seconds", "computing", "waiting"}, body);
    lesson.say_under(
        fmt::format("ring time (slowest rank) at P = {}, n = {}, d = {}{}: contiguous {:.3f} s, striped {:.3f} s", s.P,
                    s.f.n, s.f.d, s.f.causal ? ", causal" : "",
                    *std::max_element(s.contiguous.seconds.begin(), s.contiguous.seconds.end()),
                    *std::max_element(s.striped.seconds.begin(), s.striped.seconds.end())));
}

void check(SelfChecks& check, const Shown& s) {
    const AttentionTolerance tol = attention_tolerance(s.Q, s.K, s.V);
    const std::string causal = s.f.causal ? " (causal)" : "";
    for (const RingRun* run : {&s.contiguous, &s.striped}) {
        const std::string name = run == &s.contiguous ? "contiguous" : "striped";
        check.close("ring, " + name + " = chapter 10's materialised attention" + causal,
                    max_abs_difference(run->output, s.reference), tol.output);
        if (s.in_double.size() == 0)
            check.skip("ring, " + name + " = the loops in double",
                       fmt::format("n > {}: they would take minutes", max_n_in_double));
        else
            check.close("ring, " + name + " = the loops in double" + causal,
                        max_abs_difference(run->output, s.in_double), tol.output);
        bool counted = true;
        for (std::size_t r = 0; r < s.P; ++r)
            for (std::size_t t = 0; t < s.P; ++t)
                counted = counted && run->pairs[r][t] ==
                                         visible_pairs(rows_of(run->layout, r, s.f.n, s.P),
                                                       rows_of(run->layout, run->held[r][t], s.f.n, s.P), s.f.causal);
        check.that("ring, " + name + ": every rank computed the pairs the mask lets through, no more", counted);
    }
    double m_error = 0.0, l_error = 0.0;
    for (std::size_t r = 0; r < s.P; ++r) {
        m_error = std::max(m_error, std::abs(double(s.contiguous.m[r].back()) - s.first[r].m));
        l_error = std::max(l_error, std::abs(double(s.contiguous.l[r].back()) - s.first[r].l) / s.first[r].l);
    }
    // A score is off by at most tol.weights (see attention_tolerance.hpp); ℓ by twice that
    // (relative), plus the rounding of its n terms.
    check.close("each rank's final m = its first query's max score, in double", m_error, tol.weights);
    check.close("each rank's final ℓ = Σ exp(s − m) in double (relative)", l_error,
                2.0 * tol.weights + row_sum_tolerance(s.f.n));
    bool bytes = true;
    for (std::size_t r = 0; r < s.P; ++r) {
        std::uint64_t expected = 0;  // the blocks it forwards: its own, then those of r − 1, …, r − (P − 2)
        for (std::size_t t = 0; t + 1 < s.P; ++t)
            expected += block_bytes(rows_of(Layout::contiguous, owner_at(r, t, s.P), s.f.n, s.P).size(), s.f.d);
        bytes = bytes && s.contiguous.bytes_sent[r] == expected &&
                (s.f.n % s.P != 0 || expected == (s.P - 1) * 2 * (s.f.n / s.P) * s.f.d * 4);
    }
    check.that("each rank sent (P − 1)·2·(n/P)·d·4 bytes (its blocks' sizes, when n/P is uneven)", bytes);
    // The ring's two buffers: the block a rank computes with and the one arriving, each at most
    // ⌈n/P⌉ rows of K and of V.
    const std::uint64_t two_blocks = 2 * 2 * ((s.f.n + s.P - 1) / s.P) * s.f.d;
    const std::uint64_t most_held =
        *std::max_element(s.contiguous.most_floats_held.begin(), s.contiguous.most_floats_held.end());
    check.that(fmt::format("no rank's ring held more than two blocks of K and V at once: {} ≤ 2·2·⌈n/P⌉·d = {} floats",
                           grouped(most_held), grouped(two_blocks)),
               most_held <= two_blocks);
    const auto spread = [](const std::vector<std::uint64_t>& w) {
        return *std::max_element(w.begin(), w.end()) - *std::min_element(w.begin(), w.end());
    };
    if (s.P == 1)
        check.skip("striped rows even out causal work", "one rank: nothing to even out");
    else
        // Ranks r < r' hold rows r + uP and r' + uP: each pair of rows differs by < P keys, over
        // ⌊n/P⌋ rows (< n), plus at most one extra row (≤ n keys). With n/P even, contiguous
        // rows spread b·b·(P − 1) pairs against striped b·(P − 1); with remainders, for a short
        // sequence (n = 5, P = 4), contiguous may spread less.
        check.that(fmt::format("striped rows even out causal work: spread {} ≤ 2n = {} pairs (contiguous: {})",
                               spread(s.causal_striped), 2 * s.f.n, spread(s.causal_contiguous)),
                   spread(s.causal_striped) <= 2 * s.f.n &&
                       (s.f.n % s.P != 0 || spread(s.causal_striped) <= spread(s.causal_contiguous)));
}

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

// The chapter's results on rank 0: the inputs, both rings, the references.
Shown compute(const Flags& f, const Mpi& mpi) {
    Shown s{f,
            mpi.size(),
            Random(f.seed).normal_matrix(f.n, f.d),
            Random(f.seed + 1).normal_matrix(f.n, f.d),
            Random(f.seed + 2).normal_matrix(f.n, f.d),
            {},
            {},
            {},
            {},
            {},
            {},
            {}};
    s.contiguous = ring_attention(mpi, s.Q, s.K, s.V, Layout::contiguous, f.causal);
    s.striped = ring_attention(mpi, s.Q, s.K, s.V, Layout::striped, f.causal);
    if (mpi.rank() != 0) return s;
    s.reference = materialised_attention(s.Q, s.K, s.V, f.causal);
    if (f.n <= max_n_in_double) s.in_double = attention_in_double(s.Q, s.K, s.V, f.causal);
    for (std::size_t r = 0; r < s.P; ++r)
        s.first.push_back(
            softmax_stats_in_double(s.Q, rows_of(Layout::contiguous, r, f.n, s.P).front(), s.K, f.causal));
    s.causal_contiguous = work_per_rank(Layout::contiguous, f.n, s.P, true);
    s.causal_striped = work_per_rank(Layout::striped, f.n, s.P, true);
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    Mpi mpi;  // ended after the lesson has written its files
    Mpi::print_on_rank_0_only();
    Lesson lesson("ch17_ring_attention", "Chapter 17 · Ring attention: one head across several processes");
    Flags f;
    add_flags(lesson.cli(), f);
    return lesson.run(argc, argv, [&] {
        if (!Mpi::launched()) {
            // The launcher's check, in one process before mpirun starts any: the flags (parsed
            // above, as every rank will) and the number of processes, TUTORIAL_CHECK_RANKS.
            if (const char* ranks = std::getenv("TUTORIAL_CHECK_RANKS")) {
                ranks_to_start(ranks, f.n, f.allow_many_ranks);
                return;
            }
            throw InputError(
                fmt::format("runs as several processes: start it with `./tutorial run 17 [--ranks P]` or "
                            "`mpirun -n 4 {}` (see docs/ch17_ring_attention.md)",
                            argv[0]));
        }
        mpi.join();
        if (f.n < mpi.size())
            mpi.refuse(
                fmt::format("--n {} is fewer tokens than the {} ranks: each rank needs a query", f.n, mpi.size()));
        const Shown s = compute(f, mpi);
        if (mpi.rank() != 0) return;  // rank 0 prints, and writes the files
        lesson.step("split", "Who holds what", [&] { show_split(lesson, s); });
        lesson.step("timeline", "The ring: which block each rank merges at each step",
                    [&] { show_timeline(lesson, s); });
        lesson.step("running", "One query per rank: the running max and denominator", [&] { show_running(lesson, s); });
        lesson.step("output", "The output, gathered on rank 0", [&] { show_output(lesson, s); });
        lesson.step("traffic", "Bytes sent and work done per rank", [&] { show_traffic(lesson, s); });
        lesson.step("scaling", "Communication against compute as n grows", [&] { show_scaling(lesson, s); });
        lesson.step("balance", "Causal work per rank: contiguous against striped", [&] { show_balance(lesson, s); });
        if (f.measure)
            lesson.step("measured", "Measured: the ring's time on this machine", [&] { show_measured(lesson, s); });
        lesson.step("checks", "Self-checks", [&] { check(lesson.checks(), s); });
        lesson.present();
    });
}
