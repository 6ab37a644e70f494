#include "chapters/13_kv_cache/checks.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "common/lesson/attention_tolerance.hpp"
#include "common/reference/attention_by_loops.hpp"

namespace {

// The cache, the stacked strips and the rolling buffer against attention at once and by loops.
void check_attention(SelfChecks& check, const CachedDecoding& r) {
    const FullAttention& full = r.full;
    const std::size_t n = rows(full.Q), w = r.win.window;
    const AttentionTolerance tol = attention_tolerance(full.Q, full.K, full.V);
    const AttentionByLoops loops = attention_by_loops(full.Q, full.K, full.V, KeysSeen::causal());
    const AttentionByLoops window_loops = attention_by_loops(full.Q, full.K, full.V, KeysSeen::causal_window(w));
    check.close("the cache holds X · W_K and X · W_V after the last step",
                std::max(max_abs_difference(r.dec.cache.K, full.K), max_abs_difference(r.dec.cache.V, full.V)),
                scaled_tolerance(1e-5, full.K) + scaled_tolerance(1e-5, full.V));
    check.close("decoded with the cache = masked_attention, causal, at once",
                max_abs_difference(r.dec.output, full.causal.output), tol.output);
    check.close("… = causal attention by loops in double: the outputs", max_abs_difference(r.dec.output, loops.output),
                tol.output);
    check.close("… and the weights: the stacked strips are the causal weights",
                max_abs_difference(r.dec.weights, loops.weights), tol.weights);
    check.close("every strip sums to 1", worst_row_sum_error(r.dec.weights), row_sum_tolerance(n));
    check.close(fmt::format("the rolling buffer (w = {}) = masked_attention, band mask", w),
                max_abs_difference(r.win.output, full.windowed.output), tol.output);
    check.close("… = windowed attention by loops in double: the outputs",
                max_abs_difference(r.win.output, window_loops.output), tol.output);
    check.close("… and the weights", max_abs_difference(r.win.weights, window_loops.weights), tol.weights);
    check.that(fmt::format("the buffer never held more than min(n, w) = {} rows", std::min(n, w)),
               r.win.most_rows == std::min(n, w) && rows(r.win.buffer.K) == w);
}

}  // namespace

void check_decoding(SelfChecks& check, const CachedDecoding& r, const DecodingCosts& costs) {
    const std::size_t d_model = DecodingCosts::d_model, d = DecodingCosts::d;
    const std::uint64_t tokens = DecodingCosts::table_tokens, bytes_per_number = DecodingCosts::bytes_per_number;
    check_attention(check, r);
    // The sums of token_cost against their closed forms (n(n+1)/2 query–key pairs).
    bool closed = true;
    for (const TokenCost& c : costs.tokens) {
        const double N = double(c.n), D = double(d_model), k = double(d), v = double(d);
        closed = closed && c.flops_cached == 2 * D * (2 * k + v) + 2 * N * (k + v) &&
                 c.flops_recomputed == 2 * N * D * (2 * k + v) + N * (N + 1) * (k + v) &&
                 c.bytes_cached == 4 * (D * (2 * k + v) + D + N * (k + v)) &&
                 c.bytes_recomputed == 4 * (D * (2 * k + v) + N * D + N * (N + 1) / 2 * (k + v));
    }
    check.that("the cost table's sums equal their closed forms (n(n+1)/2 query–key pairs)", closed);
    // Per token: 2 (K, V) · 2 bytes · layers · d_model · kv_heads / heads, as d_model = heads · head_width.
    bool memory = true;
    for (const ModelCache& c : costs.models) {
        const ModelShape& m = c.shape;
        const auto closed_form = [&](std::uint64_t count) {
            const std::uint64_t kept = m.window > 0 ? std::min(count, m.window) : count;
            return 2 * bytes_per_number * m.layers * m.d_model * m.kv_heads * kept;
        };
        memory = memory && m.heads * m.head_width == m.d_model && c.per_token * m.heads == closed_form(1) &&
                 c.at_tokens * m.heads == closed_form(tokens) && c.at_context * m.heads == closed_form(m.context);
    }
    check.that("each model's cache = 4 B · layers · d_model · kv_heads / heads a token, to its window", memory);
    if (costs.measured.empty()) return;
    double worst = 0.0;
    for (const MeasuredToken& m : costs.measured) worst = std::max(worst, m.difference);
    check.close("--measure: the cached step's output = the recomputed last row, at every n", worst, 1e-4);
}
