// Layer normalisation written out as loops in double, straight from the formula: the
// reference for common/block/layer_norm.hpp's float32 one.
//
//   μ_i = (1/d) Σ_j x_ij      σ²_i = (1/d) Σ_j (x_ij − μ_i)²
//   LN(x)_ij = γ_j · (x_ij − μ_i) / √(σ²_i + ε) + β_j          (n × d) → (n × d)
#pragma once

#include <cmath>

#include "common/numbers/matrix.hpp"

Matrix layer_norm_by_loops(const Matrix& x, const Vector& gamma, const Vector& beta, double epsilon = 1e-5);

// The same loops on rows of float or double, γ and β of any shape read entry by entry
// (γ.flat(j)), every step in double: the GPT's reference (common/reference/gpt_by_loops.cpp).
template <class Rows, class Scale>
Mat<double> layer_norm_in_double(const Rows& x, const Scale& gamma, const Scale& beta, double epsilon = 1e-5) {
    const std::size_t n = x.shape(0), d = x.shape(1);
    Mat<double> y = Mat<double>::from_shape({n, d});
    for (std::size_t i = 0; i < n; ++i) {
        // 1. the row's mean and variance
        double mean = 0.0, variance = 0.0;
        for (std::size_t j = 0; j < d; ++j) mean += double(x(i, j));
        mean /= double(d);
        for (std::size_t j = 0; j < d; ++j) variance += (double(x(i, j)) - mean) * (double(x(i, j)) - mean);
        variance /= double(d);
        // 2. centre, scale, then γ and β
        for (std::size_t j = 0; j < d; ++j)
            y(i, j) = double(gamma.flat(j)) * (double(x(i, j)) - mean) / std::sqrt(variance + epsilon) + double(beta.flat(j));
    }
    return y;
}
