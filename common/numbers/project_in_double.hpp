// X · W summed in double precision, for the self-checks' loops: an independent
// reference that shares no code with matmul (BLAS, float).
#pragma once

#include <vector>

#include "common/numbers/matrix.hpp"

// (n × d_model) · (d_model × c) → n rows of c numbers. With absolute = true,
// Σ_d |x_d|·|w_dc|: the size that float rounding of the same sum is relative to.
std::vector<std::vector<double>> project_in_double(const Matrix& X, const Matrix& W, bool absolute = false);

// A · W with A already in double (n rows of k) and W (k × c): summed in double,
// rounded to float once at the end. (n × c)
Matrix times_in_double(const std::vector<std::vector<double>>& A, const Matrix& W);

// The largest |a| of A, and the largest Σ_r |W(r, c)| over W's columns: together
// the size a row of A · W can reach, which float rounding is relative to.
double largest_abs(const std::vector<std::vector<double>>& A);
double largest_abs(const Matrix& A);
double largest_column_sum(const Matrix& W);
