#include "common/attention/mask.hpp"

#include <cmath>
#include <limits>

#include "common/attention/attention.hpp"
#include "common/attention/softmax.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/matmul.hpp"

namespace {
void require_same_shape(const Matrix& scores, const Matrix& mask, const char* what) {
    if (scores.shape() != mask.shape())
        throw InputError(describe(what, ": scores are (", rows(scores), " × ", cols(scores), ") but the mask is (", rows(mask), " × ", cols(mask), ")"));
}
}  // namespace

Matrix causal_mask(std::size_t n) {
    Matrix mask = Matrix::from_shape({n, n});
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) mask(i, j) = j <= i ? 1.0f : 0.0f;
    return mask;
}

Matrix apply_mask(const Matrix& scores, const Matrix& mask) {
    require_same_shape(scores, mask, "apply_mask");
    const float minus_infinity = -std::numeric_limits<float>::infinity();
    Matrix masked = scores;
    for (std::size_t i = 0; i < masked.size(); ++i)
        if (mask.flat(i) == 0.0f) masked.flat(i) = minus_infinity;
    return masked;
}

Matrix softmax_then_renormalise(const Matrix& scores, const Matrix& mask) {
    require_same_shape(scores, mask, "softmax_then_renormalise");
    Matrix weights = softmax_rows(scores);  // every key, the future too
    for (std::size_t i = 0; i < rows(weights); ++i) {
        float kept = 0.0f;
        for (std::size_t j = 0; j < cols(weights); ++j) {
            if (mask(i, j) == 0.0f) weights(i, j) = 0.0f;  // forget the hidden keys
            kept += weights(i, j);
        }
        for (std::size_t j = 0; j < cols(weights); ++j)  // what is left sums to 1 again
            weights(i, j) = kept > 0.0f ? weights(i, j) / kept : 0.0f;
    }
    return weights;
}

MaskedAttentionSteps masked_attention(const Matrix& Q, const Matrix& K, const Matrix& V, const Matrix& mask) {
    if (rows(K) != rows(V))
        throw InputError(describe("attention: ", rows(K), " keys but ", rows(V), " values"));
    MaskedAttentionSteps steps;
    steps.scores = dot_scores(Q, K);                                      // (n × m)
    const float scale = 1.0f / std::sqrt(static_cast<float>(cols(K)));
    steps.scaled_scores = steps.scores * scale;                           // (n × m)
    steps.masked_scores = apply_mask(steps.scaled_scores, mask);          // (n × m), −inf where hidden
    steps.weights = softmax_rows(steps.masked_scores);                    // (n × m), hidden → exactly 0
    steps.output = matmul(steps.weights, V);                              // (n × d_v)
    return steps;
}
