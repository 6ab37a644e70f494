#include "common/attention/attention.hpp"

#include <cmath>

#include "common/attention/softmax.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/matmul.hpp"

Matrix dot_scores(const Matrix& Q, const Matrix& K) { return matmul_transposed(Q, K); }

AttentionSteps scaled_dot_product_attention(const Matrix& Q, const Matrix& K, const Matrix& V) {
    if (rows(K) != rows(V))
        throw InputError(describe("attention: ", rows(K), " keys but ", rows(V), " values"));
    AttentionSteps steps;
    steps.scores = dot_scores(Q, K);                                            // (n × m)
    const float scale = 1.0f / std::sqrt(static_cast<float>(cols(K)));
    steps.scaled_scores = steps.scores * scale;                                 // (n × m)
    steps.weights = softmax_rows(steps.scaled_scores);                          // (n × m)
    steps.output = matmul(steps.weights, V);                                    // (n × d_v)
    return steps;
}
