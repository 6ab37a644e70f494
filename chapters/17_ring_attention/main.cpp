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

#include "chapters/17_ring_attention/checks.hpp"
#include "chapters/17_ring_attention/inputs.hpp"
#include "chapters/17_ring_attention/math.hpp"
#include "chapters/17_ring_attention/ring.hpp"
#include "common/display/table_rows.hpp"
#include "common/inputs/sequence.hpp"
#include "common/lesson/lesson.hpp"

namespace {

// Everything the steps show, computed once (rank 0 after the rings).
struct Shown {
    const Flags& f;
    std::size_t P;
    const RingInputs& in;          // Q, K and V, whole
    const Rings& rings;            // the ring with each layout
    const CausalBalance& balance;  // a causal ring's pairs per rank, with each layout
};

std::string rank_name(std::size_t r) { return fmt::format("r{}", r); }
std::string three(double seconds) { return format_number(float(seconds), 3); }

// "0–3", or "1, 5, 9, 13", or "1, 5, …, 16381" (a rank's rows, short).
std::string rows_text(const Rows& at, Layout layout) {
    if (at.empty()) return "none";
    if (layout == Layout::contiguous)
        return at.size() == 1 ? fmt::format("{}", at[0]) : fmt::format("{}–{}", at.front(), at.back());
    if (at.size() <= 4) return fmt::format("{}", fmt::join(at, ", "));
    return fmt::format("{}, {}, …, {}", at[0], at[1], at.back());
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
    lesson.table({"rank", "contiguous rows", "striped rows"}, rows_for(s.P, [&](std::size_t r) {
        return TextRow{rank_name(r), rows_text(rows_of(Layout::contiguous, r, n, s.P), Layout::contiguous),
                       rows_text(rows_of(Layout::striped, r, n, s.P), Layout::striped)};
    }));
    lesson.show(s.in.Q, Style().decimals(2));
}

void show_timeline(Lesson& lesson, const Shown& s) {
    const RingRun& run = s.rings.contiguous;
    lesson.say(
        fmt::format("At step t rank r holds the K/V block that rank (r − t) mod P started with, merges it\n"
                    "into its running result, and passes it to rank r + 1 while the next arrives from r − 1.\n"
                    "A cell names the rank whose block is merged{}.\n"
                    "After P − 1 = {} pass{} every rank has seen every block once (contiguous layout;\n"
                    "striped runs the same schedule).",
                    s.f.causal ? "; \"(skip)\": causal attention hides all of it" : "", s.P - 1, s.P == 2 ? "" : "es"));
    TextRow header{"step"};
    for (std::size_t r = 0; r < s.P; ++r) header.push_back(rank_name(r));
    lesson.table(header, rows_for(s.P, [&](std::size_t t) {
        TextRow row{fmt::format("{}", t)};
        for (std::size_t r = 0; r < s.P; ++r)
            row.push_back(fmt::format("{}{}", rank_name(run.held[r][t]), run.pairs[r][t] == 0 ? " (skip)" : ""));
        return row;
    }));
}

void show_running(Lesson& lesson, const Shown& s) {
    const RingRun& run = s.rings.contiguous;
    lesson.say(
        "Each rank's first query, as blocks arrive: its running max m and denominator ℓ (\"m / ℓ\").\n"
        "When a block brings a larger score, m jumps and the old ℓ is rescaled by exp(m_old − m)\n"
        "before the block's own terms are added: the merge of two partial results,\n"
        "  m = max(m_a, m_b), α = exp(m_a − m), β = exp(m_b − m), ℓ = α·ℓ_a + β·ℓ_b, "
        "O = α·O_a + β·O_b\n"
        "(m, ℓ of shape (b), O of shape (b × d)). The last row is the whole softmax's m and ℓ.");
    const std::vector<std::size_t> ranks = shown_ranks(s.P);
    TextRow header{"step"};
    for (const std::size_t r : ranks)
        header.push_back(fmt::format("{} (t{})", rank_name(r), rows_of(Layout::contiguous, r, s.f.n, s.P).front()));
    lesson.table(header, rows_for(s.P, [&](std::size_t t) {
        TextRow row{fmt::format("{}", t)};
        for (const std::size_t r : ranks)
            row.push_back(run.l[r][t] == 0.0f ? "−∞ / 0"
                                              : format_number(run.m[r][t], 3) + " / " + format_number(run.l[r][t], 3));
        return row;
    }));
    if (ranks.size() < s.P) lesson.say_under(fmt::format("(ranks 3 to {} not shown)", s.P - 2));
}

void show_output(Lesson& lesson, const Shown& s) {
    lesson.say(
        fmt::format("Each rank divides O by ℓ and sends its rows to rank 0, which puts them in place:\n"
                    "softmax(Q · Kᵀ / √d{}) · V. The ring held at most two blocks of K and V on a rank:\n"
                    "the one it computes with and the one arriving.",
                    s.f.causal ? " + causal mask" : ""));
    lesson.show(s.rings.contiguous.output);
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
        const std::uint64_t pairs = s.rings.contiguous.pairs_of(r);
        body.push_back({rank_name(r), fmt::format("{}", s.P - 1), grouped(s.rings.contiguous.bytes_sent[r]),
                        grouped(pairs), grouped(std::uint64_t(block_flops(pairs, d)))});
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
    for (const StepCost& c : step_costs(P, d))
        body.push_back({grouped(c.n), grouped(c.b), grouped(c.bytes), grouped(c.flops), grouped(c.b / 2)});
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
        body.push_back({rank_name(r), grouped(s.balance.contiguous[r]), grouped(s.balance.striped[r])});
    body.push_back({"max/min", format_number(float(s.balance.contiguous_ratio), 2),
                    format_number(float(s.balance.striped_ratio), 2)});
    lesson.table({"rank", "contiguous", "striped"}, body);
}

void show_measured(Lesson& lesson, const Shown& s) {
    lesson.say(
        fmt::format("Wall time of the ring (after a barrier, until the last block is merged), split into\n"
                    "computing and waiting for blocks. P = {} process{} on this machine's cores.",
                    s.P, s.P == 1 ? "" : "es"));
    std::vector<TextRow> body;
    for (const RingRun* run : {&s.rings.contiguous, &s.rings.striped})
        for (std::size_t r = 0; r < s.P; ++r)
            body.push_back({run->layout == Layout::contiguous ? "contiguous" : "striped", rank_name(r),
                            three(run->seconds[r]), three(run->compute_seconds[r]), three(run->wait_seconds[r])});
    lesson.table({"layout", "rank", "seconds", "computing", "waiting"}, body);
    lesson.say_under(
        fmt::format("ring time (slowest rank) at P = {}, n = {}, d = {}{}: contiguous {} s, striped {} s", s.P, s.f.n,
                    s.f.d, s.f.causal ? ", causal" : "", three(s.rings.contiguous.slowest()),
                    three(s.rings.striped.slowest())));
}

}  // namespace

int main(int argc, char** argv) {
    Mpi mpi;  // ended after the lesson has written its files
    Mpi::print_on_rank_0_only();
    Lesson lesson;  // named and titled by chapter.toml
    Flags f;
    add_flags(lesson, f);
    refuse_text(lesson, "the ranks share random queries, keys and values: --n, --d, --seed");
    return lesson.run(argc, argv, [&] {
        // started alone: the launcher's check of the flags (parsed above, as every rank will)
        if (!Mpi::launched()) return check_before_launch(argv[0], f.n, f.allow_many_ranks);
        mpi.join();
        require_a_query_per_rank(mpi, f);
        const RingInputs in = ring_inputs(f.n, f.d, f.seed);
        const Rings rings = both_rings(mpi, in, f.causal);
        if (mpi.rank() != 0) return;  // rank 0 prints, and writes the files
        const CausalBalance balance = causal_balance(f.n, mpi.size());
        const Shown s{f, mpi.size(), in, rings, balance};
        lesson.labels({{"tokens", numbered("t", f.n)}, {"dimensions", numbered("d", f.d)}});
        lesson.list(in.matrices());
        lesson.list(rings.matrices());
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
        lesson.step("checks", "Self-checks", [&] { check_ring(lesson.checks(), in, rings, f.causal, balance); });
        lesson.present();
    });
}
