#include "chapters/04_value_retrieval/checks.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/lesson/combination.hpp"
#include "common/reference/attention_by_loops.hpp"

namespace {

constexpr float check_temperature = 0.001f;  // the self-check's "low temperature"
constexpr float smallest_gap = 0.02f;         // a best key must lead by this much to be checked at that T

// At T = 0.001 the soft lookup of each query with one best key: its largest distance from
// the hard answer, and how many queries were checked.
std::pair<double, std::size_t> cold_error(const ValueRetrieval& r) {
    const Lookup& l = r.book;
    const Matrix cold = soft_lookup(l.scores, r.values, check_temperature);  // (q × d_v)
    double error = 0.0;
    std::size_t checked = 0;
    for (std::size_t i = 0; i < rows(l.scores); ++i)
        if (lead_in_row(l.scores, i) >= smallest_gap) {
            error = std::max(error, double(row_distance(cold, i, l.hard, i)));
            ++checked;
        }
    return {error, checked};
}

// Each output row against its printed combination Σ_j w_ij x_j (the terms the lesson writes).
double combination_error(const Matrix& X, const SentenceLookup& s) {
    double error = 0.0;
    for (std::size_t i = 0; i < rows(X); ++i) {
        const Matrix by_terms = combine_rows(combination_of_row(s.weights, i, 4, 0.02f), X);  // (1 × d)
        for (std::size_t d = 0; d < cols(X); ++d)
            error = std::max(error, double(std::abs(by_terms(0, d) - s.output(i, d))));
    }
    return error;
}

// The sentence's weights and output against the reference in double, which divides the
// scores by √d_k itself: queries X / T give softmax(X · Xᵀ / √d_model / T) · X.
double sentence_error(const Matrix& X, const SentenceLookup& s) {
    const Matrix queries = X / s.temperature;  // (n × d_model); exactly X at T = 1
    const AttentionByLoops reference = attention_by_loops(queries, X, X);
    return std::max(max_abs_difference(reference.weights, s.weights), max_abs_difference(reference.output, s.output));
}

}  // namespace

void check_value_retrieval(SelfChecks& check, const Matrix& X, const ValueRetrieval& r) {
    const Lookup& l = r.book;
    float largest_value = 1.0f;
    for (const float v : r.values) largest_value = std::max(largest_value, std::abs(v));
    const double tolerance = 1e-5 * largest_value;  // float rounding grows with the size of the values
    check.close("the soft lookup weights · values equals the loop Σ_i w_i v_i",
                max_abs_difference(l.soft_by_loops, l.soft), tolerance);
    check.close("every row of phonebook_weights and of weights sums to 1",
                std::max(worst_row_sum_error(l.weights), worst_row_sum_error(r.sentence.weights)),
                row_sum_tolerance(std::max(cols(l.weights), rows(X))));
    const auto [cold, checked] = cold_error(r);
    check.close(fmt::format("at T = {:g} soft = hard (the {} queries with one best key)", check_temperature, checked),
                cold, 1e-4 * largest_value);
    check.close("each output row equals its printed combination Σ_j w_ij x_j", combination_error(X, r.sentence),
                scaled_tolerance(1e-5, X));  // rounding grows with the size of the embeddings
    // Weights ≤ 1 and outputs of the size of X: float rounding is relative to both.
    check.close("output = softmax(X · Xᵀ / √d / T) · X, looped in double", sentence_error(X, r.sentence),
                scaled_tolerance(1e-5, X));
}
