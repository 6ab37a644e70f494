#include "common/attention.hpp"

#include <cmath>

#include <fmt/format.h>

#include "common/input_error.hpp"
#include "common/matmul.hpp"
#include "common/softmax.hpp"

Matrix dot_scores(const Matrix& Q, const Matrix& K) { return matmul_transposed(Q, K); }

AttentionSteps scaled_dot_product_attention(const Matrix& Q, const Matrix& K, const Matrix& V) {
    if (rows(K) != rows(V))
        throw InputError(fmt::format("attention: {} keys but {} values", rows(K), rows(V)));
    AttentionSteps steps;
    steps.scores = dot_scores(Q, K);                                            // (n × m)
    const float scale = 1.0f / std::sqrt(static_cast<float>(cols(K)));
    steps.scaled_scores = steps.scores * scale;                                 // (n × m)
    steps.weights = softmax_rows(steps.scaled_scores);                          // (n × m)
    steps.output = matmul(steps.weights, V);                                    // (n × d_v)
    return steps;
}
