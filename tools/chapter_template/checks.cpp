#include "chapters/@folder@/checks.hpp"

#include <algorithm>
#include <cmath>

#include "common/reference/attention_by_loops.hpp"

void check_self_attention(SelfChecks& check, const Sequence& seq, const SelfAttention& r) {
    const Matrix& X = seq.X;
    // The reference: softmax(X Xᵀ / √d) X as loops in double, straight from the formula.
    const AttentionByLoops reference = attention_by_loops(X, X, X);
    // Float rounding grows with the size of the scores: the tolerance scales with it.
    const double tolerance = 1e-5 * std::max(1.0, reference.score_size);
    check.close("the weights equal the reference's, in double", max_abs_difference(r.weights, reference.weights),
                tolerance);
    check.close("the output equals the reference's, in double", max_abs_difference(r.output, reference.output),
                tolerance * scaled_tolerance(1.0, X));
    check.close("every row of the weights sums to 1", worst_row_sum_error(r.weights), row_sum_tolerance(rows(X)));
    // The loop's scores against the weights they must give: softmax of each row.
    double largest = 0.0;
    for (std::size_t i = 0; i < rows(X); ++i) {
        double top = -INFINITY, sum = 0.0;
        for (std::size_t j = 0; j < rows(X); ++j) top = std::max(top, double(r.scaled_scores(i, j)));
        for (std::size_t j = 0; j < rows(X); ++j) sum += std::exp(r.scaled_scores(i, j) - top);
        for (std::size_t j = 0; j < rows(X); ++j)
            largest = std::max(largest, std::abs(std::exp(r.scaled_scores(i, j) - top) / sum - r.weights(i, j)));
    }
    check.close("softmax of the loop's scaled scores gives the weights", largest, tolerance);
}
