#include "common/block/layer_norm.hpp"

#include <cmath>

#include <xtensor/xmath.hpp>
#include <xtensor/xreducer.hpp>

#include "common/numbers/input_error.hpp"

LayerNormParams identity_layer_norm(std::size_t d_model) {
    return {xt::ones<float>({d_model}), xt::zeros<float>({d_model})};
}

// Whole matrices at once (chapter 12's math.cpp writes the same formula as loops, one
// row at a time). Each reduction is stored before it is used (GUIDE §3.1: a lazy
// reducer broadcast inside an expression gives wrong numbers in xtensor 0.24).
Matrix normalise_rows(const Matrix& x, float epsilon) {
    const float d = static_cast<float>(cols(x));
    // 1. each row's mean μ: (n × 1)
    const Matrix mean = xt::sum(x, {1}, xt::keep_dims | xt::evaluation_strategy::immediate) / d;
    // 2. its variance around that mean, a second pass: the one-pass E[x²] − E[x]²
    //    loses digits in float32 when the mean is large
    const Matrix centred = x - mean;  // (n × d)
    const Matrix variance = xt::sum(centred * centred, {1}, xt::keep_dims | xt::evaluation_strategy::immediate) / d;
    // 3. x̂ = (x − μ) / √(σ² + ε)
    const Matrix inv_std = 1.0f / xt::sqrt(variance + epsilon);  // (n × 1)
    return centred * inv_std;
}

Matrix layer_norm(const Matrix& x, const LayerNormParams& params, float epsilon) {
    if (params.gamma.size() != cols(x) || params.beta.size() != cols(x))
        throw InputError(describe("layer_norm: γ has ", params.gamma.size(), " and β ", params.beta.size(), " entries for rows of width ", cols(x)));
    return normalise_rows(x, epsilon) * params.gamma + params.beta;  // γ and β broadcast down the rows
}
