// Layer normalisation (Ba, Kiros and Hinton 2016), one token (row) at a time:
//
//   μ = (1/d) Σ_j x_j                  the row's mean
//   σ² = (1/d) Σ_j (x_j − μ)²           its variance (divided by d, as PyTorch does)
//   x̂_j = (x_j − μ) / √(σ² + ε)        mean 0, variance σ²/(σ² + ε) ≈ 1
//   LN(x)_j = γ_j · x̂_j + β_j          a learned gain and bias per column
//
// Shapes: x (n × d_model), γ and β (d_model). ε = 1e-5, PyTorch's default, keeps
// a constant row (σ² = 0) from dividing by zero. The rows never mix: each token
// is normalised on its own, unlike batch normalisation, which mixes the batch.
#pragma once

#include "common/numbers/matrix.hpp"

constexpr float layer_norm_epsilon = 1e-5f;

struct LayerNormParams {
    Vector gamma;  // (d_model) gain, 1 in a fresh model
    Vector beta;   // (d_model) bias, 0 in a fresh model
};

// γ = 1, β = 0: LN(x) = x̂.
LayerNormParams identity_layer_norm(std::size_t d_model);

// x̂: each row shifted to mean 0 and scaled to variance ≈ 1. (n × d) → (n × d)
Matrix normalise_rows(const Matrix& x, float epsilon = layer_norm_epsilon);

// γ ⊙ x̂ + β, row by row. (n × d_model) → (n × d_model); throws InputError when
// γ or β is not d_model long.
Matrix layer_norm(const Matrix& x, const LayerNormParams& params, float epsilon = layer_norm_epsilon);
