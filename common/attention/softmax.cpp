#include "common/attention/softmax.hpp"

#include <cmath>
#include <limits>

Matrix softmax_rows(const Matrix& scores) {
    Matrix weights = Matrix::from_shape(scores.shape());
    const float minus_infinity = -std::numeric_limits<float>::infinity();
    for (std::size_t i = 0; i < rows(scores); ++i) {
        // 1. the row maximum, for numerical stability
        float row_max = minus_infinity;
        for (std::size_t j = 0; j < cols(scores); ++j) row_max = std::max(row_max, scores(i, j));
        if (row_max == minus_infinity) {  // every key masked: no weight to give
            for (std::size_t j = 0; j < cols(scores); ++j) weights(i, j) = 0.0f;
            continue;
        }
        // 2. exponentiate the shifted scores and sum them
        float row_sum = 0.0f;
        for (std::size_t j = 0; j < cols(scores); ++j) {
            weights(i, j) = std::exp(scores(i, j) - row_max);
            row_sum += weights(i, j);
        }
        // 3. normalise so the row sums to 1
        for (std::size_t j = 0; j < cols(scores); ++j) weights(i, j) /= row_sum;
    }
    return weights;
}
