#include "chapters/01_dot_product_scores/checks.hpp"
#include "common/inputs/sequence.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

void check_scores(SelfChecks& check, const Sequence& seq, const DotProductScores& r, const std::string& loop_step) {
    const Matrix& X = seq.X;
    const Matrix& scores = r.scores;
    const std::size_t n = rows(X);
    // Float rounding grows with the size of the products summed, Σ_d |q_d k_d|, and by
    // Cauchy–Schwarz that is at most max(‖q‖², ‖k‖²), the largest score of the diagonal:
    // so tolerances relative to the largest score hold for embeddings of any size.
    check.close(fmt::format("the loop of {} equals X · Xᵀ", loop_step), max_abs_difference(r.scores_by_loops, scores),
                scaled_tolerance(1e-5, scores));
    Matrix transposed = Matrix::from_shape({n, n});
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) transposed(i, j) = scores(j, i);
    check.close("scores is symmetric: scores = scoresᵀ", max_abs_difference(scores, transposed),
                scaled_tolerance(1e-6, scores));
    double diagonal_error = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        double length2 = 0.0;
        for (std::size_t d = 0; d < cols(X); ++d) length2 += double(X(i, d)) * X(i, d);
        diagonal_error = std::max(diagonal_error, std::abs(length2 - scores(i, i)));
    }
    check.close("the diagonal is ‖x_i‖², each token's squared length", diagonal_error,
                scaled_tolerance(1e-5, scores));
    const Labels& tokens = seq.tokens;
    const std::size_t sat = index_of(tokens, "sat"), cat = index_of(tokens, "cat"), mat = index_of(tokens, "mat"),
                      black = index_of(tokens, "black");
    if (std::max({sat, cat, mat, black}) < n)
        check.that("\"sat\" scores \"cat\" and \"mat\" higher than \"black\"",
                   scores(sat, cat) > scores(sat, black) && scores(sat, mat) > scores(sat, black));
}
