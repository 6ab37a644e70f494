// The matrix type every chapter uses, and the shape legend.
//
//   n        tokens in the sequence (queries); m for keys/values when they differ
//   d_model  width of an embedding / hidden state
//   d_k, d_v width of one head's queries and keys, and of its values
//   h        number of heads; d_k = d_model / h in multi-head attention
//
// A sequence is a matrix X of shape (n × d_model), one token per row, and a
// projection is a right multiplication, Q = X · W_Q, as in numpy (x @ W).
#pragma once

#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

using Matrix = xt::xtensor<float, 2>;  // row-major, float32 like real models
using Vector = xt::xtensor<float, 1>;
using Labels = std::vector<std::string>;  // one name per row or column

inline std::size_t rows(const Matrix& m) { return m.shape(0); }
inline std::size_t cols(const Matrix& m) { return m.shape(1); }
