#include "common/attention/weight_entropy.hpp"

#include <algorithm>
#include <cmath>

double row_entropy(const Matrix& weights, std::size_t i) {
    double h = 0.0;
    for (std::size_t j = 0; j < cols(weights); ++j) {
        const double p = weights(i, j);
        if (p > 0.0) h -= p * std::log(p);
    }
    return h;
}

float row_largest(const Matrix& weights, std::size_t i) {
    float largest = weights(i, 0);
    for (std::size_t j = 1; j < cols(weights); ++j) largest = std::max(largest, weights(i, j));
    return largest;
}

double mean_row_entropy(const Matrix& weights) {
    double sum = 0.0;
    for (std::size_t i = 0; i < rows(weights); ++i) sum += row_entropy(weights, i);
    return sum / static_cast<double>(rows(weights));
}

double mean_row_largest(const Matrix& weights) {
    double sum = 0.0;
    for (std::size_t i = 0; i < rows(weights); ++i) sum += row_largest(weights, i);
    return sum / static_cast<double>(rows(weights));
}
