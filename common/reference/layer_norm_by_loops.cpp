#include "common/reference/layer_norm_by_loops.hpp"

#include <cmath>

Matrix layer_norm_by_loops(const Matrix& x, const Vector& gamma, const Vector& beta, double epsilon) {
    const std::size_t d = cols(x);
    Matrix y = Matrix::from_shape(x.shape());
    for (std::size_t i = 0; i < rows(x); ++i) {
        // 1. the row's mean and variance, in double
        double mean = 0.0, variance = 0.0;
        for (std::size_t j = 0; j < d; ++j) mean += x(i, j);
        mean /= double(d);
        for (std::size_t j = 0; j < d; ++j) variance += (x(i, j) - mean) * (x(i, j) - mean);
        variance /= double(d);
        // 2. centre, scale, then γ and β
        for (std::size_t j = 0; j < d; ++j)
            y(i, j) = float(gamma(j) * (x(i, j) - mean) / std::sqrt(variance + epsilon) + beta(j));
    }
    return y;
}
