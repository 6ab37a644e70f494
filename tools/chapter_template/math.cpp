#include "chapters/@folder@/math.hpp"

#include <cmath>

#include "common/attention/attention.hpp"

// X is (n × d_model); returns (n × n).
Matrix scaled_scores(const Matrix& X) {
    const std::size_t n = rows(X), d_model = cols(X);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d_model));
    Matrix scores = Matrix::from_shape({n, n});
    // ┌ exercise scaled-scores
    for (std::size_t i = 0; i < n; ++i)          // each query …
        for (std::size_t j = 0; j < n; ++j) {    // … against each key
            float sum = 0.0f;
            for (std::size_t d = 0; d < d_model; ++d) sum += X(i, d) * X(j, d);
            scores(i, j) = sum * scale;
        }
    // └ stub: scores.fill(0.0f);
    return scores;
}

SelfAttention self_attention(const Matrix& X) {
    SelfAttention r;
    // pass 1: the definition, one query and one key at a time
    r.scaled_scores = scaled_scores(X);
    // pass 2: the shared attention, Q = K = V = X: (n × n) weights, (n × d_model) output
    const AttentionSteps a = scaled_dot_product_attention(X, X, X);
    r.weights = a.weights;
    r.output = a.output;
    return r;
}
