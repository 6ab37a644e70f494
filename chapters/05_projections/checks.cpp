#include "chapters/05_projections/checks.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "common/display/print.hpp"
#include "common/lesson/attention_tolerance.hpp"
#include "common/numbers/matmul.hpp"
#include "common/reference/attention_by_loops.hpp"

double asymmetry_threshold(const Matrix& scores) { return scaled_tolerance(1e-3, scores); }

namespace {

// q_i · k_j − q_j · k_i for every pair, from the weights alone and in double:
// x_i (W_QK − W_QKᵀ) x_jᵀ; its largest size, and how far the scores' own differences are from it.
struct SwapDifference {
    double largest = 0, largest_error = 0;
};

SwapDifference swap_difference(const Matrix& X, const Matrix& W_QK, const Matrix& scores) {
    const std::size_t n = rows(X), d = cols(X);
    std::vector<double> Y(n * d, 0.0);  // Y = X · (W_QK − W_QKᵀ), (n × d_model)
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t a = 0; a < d; ++a)
            for (std::size_t b = 0; b < d; ++b)
                Y[i * d + b] += double(X(i, a)) * (double(W_QK(a, b)) - double(W_QK(b, a)));
    SwapDifference s;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            double v = 0;
            for (std::size_t b = 0; b < d; ++b) v += Y[i * d + b] * double(X(j, b));
            s.largest = std::max(s.largest, std::abs(v));
            s.largest_error = std::max(s.largest_error, std::abs(double(scores(i, j)) - double(scores(j, i)) - v));
        }
    return s;
}

}  // namespace

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
    // The asymmetry from the weights, in double: scores − scoresᵀ = X · (W_QK − W_QKᵀ) · Xᵀ.
    const SwapDifference swap = swap_difference(X, r.W_QK, a.scores);
    check.close("scores − scoresᵀ = X · (W_Q · W_Kᵀ − W_K · W_Qᵀ) · Xᵀ", swap.largest_error,
                2 * scaled_tolerance(1e-5, term_sizes));
    if (n < 2)
        check.skip("the scores are not symmetric", "one token: a 1 × 1 matrix is always symmetric");
    else if (!r.qk_symmetric && swap.largest <= asymmetry_threshold(a.scores))
        // The claim is about the projections; these tokens cannot show it (a token repeated).
        check.skip("the scores are not symmetric",
                   "x_i (W_Q · W_Kᵀ − W_K · W_Qᵀ) x_jᵀ is 0 for every pair of these tokens");
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
