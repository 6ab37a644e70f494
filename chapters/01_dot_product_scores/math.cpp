#include "chapters/01_dot_product_scores/math.hpp"

#include "common/numbers/matmul.hpp"

// X is (n × d_model); returns (n × n).
Matrix scores_by_loops(const Matrix& X) {
    const std::size_t n = rows(X), d_model = cols(X);
    Matrix scores = Matrix::from_shape({n, n});
    // ┌ exercise dot-products
    for (std::size_t i = 0; i < n; ++i)          // each query …
        for (std::size_t j = 0; j < n; ++j) {    // … against each key
            float sum = 0.0f;
            for (std::size_t d = 0; d < d_model; ++d) sum += X(i, d) * X(j, d);
            scores(i, j) = sum;
        }
    // └ stub: scores.fill(0.0f);
    return scores;
}

DotProductScores dot_product_scores(const Matrix& X) {
    DotProductScores r;
    // pass 1: the loop of the definition, one query and one key at a time
    r.scores_by_loops = scores_by_loops(X);
    // pass 2: all queries at once, (n × d_model) · (d_model × n) → (n × n), one BLAS call
    r.scores = matmul_transposed(X, X);
    return r;
}
