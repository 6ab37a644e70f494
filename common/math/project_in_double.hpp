// X · W summed in double precision, for the self-checks' loops: an independent
// reference that shares no code with matmul (BLAS, float).
#pragma once

#include <vector>

#include "common/math/matrix.hpp"

// (n × d_model) · (d_model × c) → n rows of c numbers. With absolute = true,
// Σ_d |x_d|·|w_dc|: the size that float rounding of the same sum is relative to.
std::vector<std::vector<double>> project_in_double(const Matrix& X, const Matrix& W, bool absolute = false);
