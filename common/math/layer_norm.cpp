#include "common/math/layer_norm.hpp"

#include <cmath>

#include "common/math/input_error.hpp"

LayerNormParams identity_layer_norm(std::size_t d_model) {
    return {xt::ones<float>({d_model}), xt::zeros<float>({d_model})};
}

Matrix normalise_rows(const Matrix& x, float epsilon) {
    const std::size_t d = cols(x);
    Matrix x_hat = Matrix::from_shape(x.shape());
    for (std::size_t i = 0; i < rows(x); ++i) {
        // Two passes, mean then variance: the one-pass E[x²] − E[x]² loses
        // digits in float32 when the mean is large.
        float mean = 0.0f;
        for (std::size_t j = 0; j < d; ++j) mean += x(i, j);
        mean /= static_cast<float>(d);
        float variance = 0.0f;
        for (std::size_t j = 0; j < d; ++j) variance += (x(i, j) - mean) * (x(i, j) - mean);
        variance /= static_cast<float>(d);
        const float inv_std = 1.0f / std::sqrt(variance + epsilon);
        for (std::size_t j = 0; j < d; ++j) x_hat(i, j) = (x(i, j) - mean) * inv_std;
    }
    return x_hat;
}

Matrix layer_norm(const Matrix& x, const LayerNormParams& params, float epsilon) {
    if (params.gamma.size() != cols(x) || params.beta.size() != cols(x))
        throw InputError(describe("layer_norm: γ has ", params.gamma.size(), " and β ", params.beta.size(), " entries for rows of width ", cols(x)));
    Matrix y = normalise_rows(x, epsilon);
    for (std::size_t i = 0; i < rows(y); ++i)
        for (std::size_t j = 0; j < cols(y); ++j) y(i, j) = params.gamma(j) * y(i, j) + params.beta(j);
    return y;
}
