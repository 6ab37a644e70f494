#include "chapters/06_masking/checks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "common/attention/mask.hpp"
#include "common/lesson/attention_tolerance.hpp"
#include "common/reference/attention_by_loops.hpp"

namespace {

// The mask as the reference reads it: added to the scores, 0 where a key is visible
// and −inf where it is hidden.
Matrix additive(const Matrix& mask) {
    Matrix added = Matrix::from_shape(mask.shape());
    for (std::size_t i = 0; i < mask.size(); ++i)
        added.flat(i) = mask.flat(i) != 0.0f ? 0.0f : -std::numeric_limits<float>::infinity();
    return added;
}

// The reference attention (common/reference, in double) over the keys `mask` lets through.
AttentionByLoops reference(const QKV& p, const Matrix& mask) {
    const Matrix added = additive(mask);
    return attention_by_loops(p.Q, p.K, p.V, KeysSeen::masked(added));
}

// Every weight that `hidden(i, j)` says a key must not get is exactly 0. The rule is
// written out here, not read from the chapter's mask, so a wrong mask cannot pass.
template <typename Hidden>
bool hidden_weights_are_zero(const Matrix& weights, Hidden hidden) {
    for (std::size_t i = 0; i < rows(weights); ++i)
        for (std::size_t j = 0; j < cols(weights); ++j)
            if (hidden(i, j) && weights(i, j) != 0.0f) return false;
    return true;
}

// The largest |Σ_j weights(i, j) − 1| over the rows that have a visible key.
double worst_visible_row_sum_error(const Matrix& weights, const Matrix& mask) {
    double worst = 0.0;
    for (std::size_t i = 0; i < rows(weights); ++i) {
        double sum = 0.0, visible = 0.0;
        for (std::size_t j = 0; j < cols(weights); ++j) sum += weights(i, j), visible += mask(i, j);
        if (visible > 0.0) worst = std::max(worst, std::abs(sum - 1.0));
    }
    return worst;
}

}  // namespace

void check_masking(SelfChecks& check, const Causal& c, const Padded& p, const LeftPadded& l, std::size_t short_n) {
    const std::size_t n = rows(c.mask);
    // The reference sums in double, skipping the hidden keys instead of giving them −inf:
    // it differs from the float matrices by the latter's rounding, which grows with the size
    // of the scores and of V (common/lesson/attention_tolerance.hpp).
    const AttentionTolerance causal = attention_tolerance(c.p.Q, c.p.K, c.p.V),
                             padded = attention_tolerance(p.p.Q, p.p.K, p.p.V);
    const AttentionByLoops loops = reference(c.p, c.mask);
    check.close("the loop over the visible keys (in double) gives the weights",
                max_abs_difference(loops.weights, c.steps.weights), causal.weights);
    check.close("the loop over the visible keys (in double) gives the output",
                max_abs_difference(loops.output, c.steps.output), causal.output);
    // The batches are the chapter's own sentences: tolerances of their own size.
    check.close("the loop (in double) gives the outputs of both padded batches",
                std::max(max_abs_difference(reference(p.p, p.mask).output, p.batch.output),
                         max_abs_difference(reference(l.p, l.mask).output, l.generation.output)),
                padded.output);
    check.that("every hidden (future) key has a weight of exactly 0",
               hidden_weights_are_zero(c.steps.weights, [](std::size_t i, std::size_t j) { return j > i; }));
    check.close("every row of weights sums to 1", worst_visible_row_sum_error(c.steps.weights, c.mask),
                row_sum_tolerance(n));
    check.close("token 0 sees only itself: weight 1, output = its value",
                std::max(std::abs(double(c.steps.weights(0, 0)) - 1.0),
                         max_abs_difference(row_block(c.steps.output, 0, 1), row_block(c.p.V, 0, 1))),
                1e-6);
    check.close(c.broken_rows.empty()
                    ? std::string("softmax, zero the future, renormalise = the −inf way")
                    : fmt::format("renormalised = −inf way, on the {} rows that kept weight", c.sound_rows.size()),
                max_abs_difference(pick_rows(c.renormalised, c.sound_rows), pick_rows(c.steps.weights, c.sound_rows)),
                row_sum_tolerance(n));  // renormalising divides by a float sum of up to n weights
    // The first tokens alone, through the shared masked attention (common/attention/mask).
    const std::size_t prefix = std::max<std::size_t>(1, n / 2);
    const MaskedAttentionSteps head_only = masked_attention(row_block(c.p.Q, 0, prefix), row_block(c.p.K, 0, prefix),
                                                            row_block(c.p.V, 0, prefix), causal_mask(prefix));
    check.close(prefix == 1 ? "the first token's output ignores the tokens after it"
                            : fmt::format("the first {} tokens' outputs ignore the tokens after them", prefix),
                max_abs_difference(head_only.output, row_block(c.steps.output, 0, prefix)),
                causal.output);  // the same sums in float, in another order: the loops' bound
    check.that("every pad key has a weight of exactly 0",
               hidden_weights_are_zero(p.batch.weights, [&](std::size_t, std::size_t j) { return j >= short_n; }));
    check.close("masked pads leave the real tokens' outputs as they are alone",
                max_abs_difference(row_block(p.batch.output, 0, short_n), p.alone.output), 1e-6);
    const std::size_t pads = rows(l.X) - short_n, left_n = rows(l.X);  // the first `pads` rows hide every key
    const bool empty_rows_are_zero =
        std::all_of(&l.generation.weights(0, 0), &l.generation.weights(0, 0) + pads * left_n,
                    [](float w) { return w == 0.0f; }) &&
        std::all_of(&l.generation.output(0, 0), &l.generation.output(0, 0) + pads * cols(l.p.V),
                    [](float v) { return v == 0.0f; });
    check.that("a row with every key hidden: zero weights, zero output, no NaN",
               empty_rows_are_zero && all_finite(l.generation.weights) && all_finite(l.generation.output));
    check.close("left-padded, the real tokens keep their causal output",
                max_abs_difference(row_block(l.generation.output, pads, short_n), l.short_causal.output), 1e-6);
}
