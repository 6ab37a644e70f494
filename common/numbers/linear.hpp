// A linear layer in the row convention: y = x · W + b.
//
//   x (n × d_in)   one token per row
//   W (d_in × d_out)
//   b (d_out)      the same bias added to every row
//
// This is PyTorch's nn.Linear, which stores the transpose of W.
#pragma once

#include "common/numbers/matrix.hpp"

// x · W + b: (n × d_in) · (d_in × d_out) + (d_out) → (n × d_out)
Matrix linear(const Matrix& x, const Matrix& W, const Vector& b);

// A vector as a (1 × d) matrix, to print or dump it like the other matrices.
Matrix as_row(const Vector& v);
