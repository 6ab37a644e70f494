// Layer normalisation written out as loops in double, straight from the formula: the
// reference for common/math/layer_norm.hpp's float32 one.
//
//   μ_i = (1/d) Σ_j x_ij      σ²_i = (1/d) Σ_j (x_ij − μ_i)²
//   LN(x)_ij = γ_j · (x_ij − μ_i) / √(σ²_i + ε) + β_j          (n × d) → (n × d)
#pragma once

#include "common/math/matrix.hpp"

Matrix layer_norm_by_loops(const Matrix& x, const Vector& gamma, const Vector& beta, double epsilon = 1e-5);
