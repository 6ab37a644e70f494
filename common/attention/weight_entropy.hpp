// How peaked a row of attention weights is: its entropy and its largest weight.
//
//   H(p) = −Σ_j p_j ln p_j      (nats; a weight of 0 adds 0, since p ln p → 0)
//
//   one-hot row (1, 0, …, 0)    H = 0        largest weight 1
//   uniform row (1/m, …, 1/m)   H = ln m     largest weight 1/m
//
// Shapes: weights (n × m), rows sum to 1.
#pragma once

#include "common/numbers/matrix.hpp"

// The entropy of row i, in nats, accumulated in double.
double row_entropy(const Matrix& weights, std::size_t i);

// The largest weight of row i.
float row_largest(const Matrix& weights, std::size_t i);

// The means of both over the rows.
double mean_row_entropy(const Matrix& weights);
double mean_row_largest(const Matrix& weights);
