#include "chapters/05_projections/checks.hpp"

#include <fmt/format.h>

#include "common/lesson/attention_tolerance.hpp"
#include "common/lesson/print.hpp"
#include "common/math/matmul.hpp"
#include "common/reference/attention_by_loops.hpp"

double asymmetry_threshold(const Matrix& scores) { return scaled_tolerance(1e-3, scores); }

void check_projections(SelfChecks& check, const Matrix& X, const Projected& r, const RawAndProjected* law,
                       const Labels& law_tokens, const std::string& matrix_step, const std::string& loop_step) {
    const AttentionSteps& a = r.attention;
    const std::size_t n = rows(X);
    // The reference: attention straight from the formula, in double, scaled by 1/√d_k by
    // itself (all keys named, for the chapter's own attention_by_loops takes three matrices).
    // Both forms differ from it by their float rounding, which grows with the size of the
    // scores and of V (common/lesson/attention_tolerance.hpp).
    const AttentionByLoops reference = attention_by_loops(r.Q, r.K, r.V, KeysSeen::all_keys());
    const AttentionTolerance tolerance = attention_tolerance(r.Q, r.K, r.V);
    check.close(fmt::format("the weights of {} equal attention looped in double", matrix_step),
                max_abs_difference(a.weights, reference.weights), tolerance.weights);
    check.close(fmt::format("the output of {} equals attention looped in double", matrix_step),
                max_abs_difference(a.output, reference.output), tolerance.output);
    check.close(fmt::format("the loops of {} give the same weights", loop_step),
                max_abs_difference(r.loops.weights, reference.weights), tolerance.weights);
    check.close(fmt::format("the loops of {} give the same output", loop_step),
                max_abs_difference(r.loops.output, reference.output), tolerance.output);
    check.close("every row of weights sums to 1", worst_row_sum_error(a.weights), row_sum_tolerance(n));
    // The two products add up the terms |x_a| |W_Q W_Kᵀ|_ab |x_b| in different orders, so they
    // differ by rounding relative to those terms, not to the scores, which can cancel to ~0.
    const Matrix term_sizes = matmul_transposed(matmul(xt::abs(X), xt::abs(r.W_Q)),
                                                matmul(xt::abs(X), xt::abs(r.W_K)));  // (n × n)
    check.close("scores = X · (W_Q · W_Kᵀ) · Xᵀ", max_abs_difference(matmul_transposed(matmul(X, r.W_QK), X), a.scores),
                scaled_tolerance(1e-5, term_sizes));
    if (n < 2)
        check.skip("the scores are not symmetric", "one token: a 1 × 1 matrix is always symmetric");
    else
        check.that(fmt::format("the scores are not symmetric (largest |scores − scoresᵀ| = {})",
                               format_number(r.asymmetry.amount, 3)),
                   r.asymmetry.amount > asymmetry_threshold(a.scores));
    if (law != nullptr) {
        const std::size_t its = index_of(law_tokens, "its"), law_index = index_of(law_tokens, "law");
        check.that("\"its\" puts its largest weight on \"law\" after projection, but not before",
                   argmax_of_row(law->projected.weights, its) == law_index &&
                       argmax_of_row(law->raw_weights, its) != law_index);
    }
}
