#include "chapters/17_ring_attention/checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "common/display/text_table.hpp"
#include "common/lesson/attention_tolerance.hpp"
#include "common/long_context/long_attention.hpp"
#include "common/reference/attention_by_loops.hpp"
#include "common/reference/softmax_stats_by_loops.hpp"

namespace {

constexpr std::size_t max_n_in_double = 4096;  // beyond it the loops in double take minutes

// Each rank's first query (contiguous layout) against the keys it sees, by the reference:
// the rows p_r of Q, and with causal a mask that hides the keys j > p_r.
SoftmaxStatsByLoops first_queries_stats(const Matrix& Q, const Matrix& K, std::size_t P, bool causal) {
    const std::size_t n = rows(Q);
    Rows firsts;
    for (std::size_t r = 0; r < P; ++r) firsts.push_back(rows_of(Layout::contiguous, r, n, P).front());
    Matrix hidden = Matrix::from_shape({P, n});  // (P × n) 0, or −∞ for a key after the query
    for (std::size_t r = 0; r < P; ++r)
        for (std::size_t j = 0; j < n; ++j)
            hidden(r, j) = causal && j > firsts[r] ? -std::numeric_limits<float>::infinity() : 0.0f;
    return softmax_stats_by_loops(take_rows(Q, firsts), K, KeysSeen::masked(hidden));
}

// One layout's ring: its output against chapter 10's and the reference's, and its pair counts.
void check_output(SelfChecks& check, const RingRun& run, bool causal, const AttentionTolerance& tol,
                  const Matrix& materialised, const Matrix* by_loops) {
    const std::size_t n = rows(run.output), P = run.P;
    const std::string name = run.layout == Layout::contiguous ? "contiguous" : "striped";
    const std::string masked = causal ? " (causal)" : "";
    check.close("ring, " + name + " = chapter 10's materialised attention" + masked,
                max_abs_difference(run.output, materialised), tol.output);
    if (by_loops == nullptr)
        check.skip("ring, " + name + " = the loops in double",
                   fmt::format("n > {}: they would take minutes", max_n_in_double));
    else
        check.close("ring, " + name + " = the loops in double" + masked, max_abs_difference(run.output, *by_loops),
                    tol.output);
    bool counted = true;
    for (std::size_t r = 0; r < P; ++r)
        for (std::size_t t = 0; t < P; ++t)
            counted = counted && run.pairs[r][t] == visible_pairs(rows_of(run.layout, r, n, P),
                                                                  rows_of(run.layout, run.held[r][t], n, P), causal);
    check.that("ring, " + name + ": every rank computed the pairs the mask lets through, no more", counted);
}

}  // namespace

void check_ring(SelfChecks& check, const RingInputs& in, const Rings& rings, bool causal,
                const CausalBalance& balance) {
    const std::size_t n = rows(in.Q), d = cols(in.Q), P = rings.contiguous.P;
    const AttentionTolerance tol = attention_tolerance(in.Q, in.K, in.V);
    // The references: chapter 10's one-process attention, and the loops in double (common/reference,
    // its own 1/√d), causal when the ring is.
    const Matrix materialised = materialised_attention(in.Q, in.K, in.V, causal);
    Matrix by_loops;
    if (n <= max_n_in_double)
        by_loops = attention_by_loops(in.Q, in.K, in.V, causal ? KeysSeen::causal() : KeysSeen::all_keys()).output;
    for (const RingRun* run : {&rings.contiguous, &rings.striped})
        check_output(check, *run, causal, tol, materialised, n <= max_n_in_double ? &by_loops : nullptr);
    const SoftmaxStatsByLoops first = first_queries_stats(in.Q, in.K, P, causal);
    double m_error = 0.0, l_error = 0.0;
    for (std::size_t r = 0; r < P; ++r) {
        m_error = std::max(m_error, std::abs(double(rings.contiguous.m[r].back()) - first.m[r]));
        l_error = std::max(l_error, std::abs(double(rings.contiguous.l[r].back()) - first.l[r]) / first.l[r]);
    }
    // A score is off by at most tol.weights (see attention_tolerance.hpp); ℓ by twice that
    // (relative), plus the rounding of its n terms.
    check.close("each rank's final m = its first query's max score, in double", m_error, tol.weights);
    check.close("each rank's final ℓ = Σ exp(s − m) in double (relative)", l_error,
                2.0 * tol.weights + row_sum_tolerance(n));
    bool bytes = true;
    for (std::size_t r = 0; r < P; ++r) {
        std::uint64_t expected = 0;  // the blocks it forwards: its own, then those of r − 1, …, r − (P − 2)
        for (std::size_t t = 0; t + 1 < P; ++t)
            expected += block_bytes(rows_of(Layout::contiguous, owner_at(r, t, P), n, P).size(), d);
        bytes = bytes && rings.contiguous.bytes_sent[r] == expected &&
                (n % P != 0 || expected == (P - 1) * 2 * (n / P) * d * 4);
    }
    check.that("each rank sent (P − 1)·2·(n/P)·d·4 bytes (its blocks' sizes, when n/P is uneven)", bytes);
    // The ring's two buffers: the block a rank computes with and the one arriving, each at most
    // ⌈n/P⌉ rows of K and of V.
    const std::uint64_t two_blocks = 2 * 2 * ((n + P - 1) / P) * d;
    const std::uint64_t most_held =
        *std::max_element(rings.contiguous.most_floats_held.begin(), rings.contiguous.most_floats_held.end());
    check.that(fmt::format("no rank's ring held more than two blocks of K and V at once: {} ≤ 2·2·⌈n/P⌉·d = {} floats",
                           grouped(most_held), grouped(two_blocks)),
               most_held <= two_blocks);
    if (P == 1)
        check.skip("striped rows even out causal work", "one rank: nothing to even out");
    else
        // Ranks r < r' hold rows r + uP and r' + uP: each pair of rows differs by < P keys, over
        // ⌊n/P⌋ rows (< n), plus at most one extra row (≤ n keys). With n/P even, contiguous
        // rows spread b·b·(P − 1) pairs against striped b·(P − 1); with remainders, for a short
        // sequence (n = 5, P = 4), contiguous may spread less.
        check.that(fmt::format("striped rows even out causal work: spread {} ≤ 2n = {} pairs (contiguous: {})",
                               balance.striped_spread, 2 * n, balance.contiguous_spread),
                   balance.striped_spread <= 2 * n &&
                       (n % P != 0 || balance.striped_spread <= balance.contiguous_spread));
}
