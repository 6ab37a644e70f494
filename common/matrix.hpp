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

// Labels for rows or columns that have no names: numbered("t", 3) → t0, t1, t2.
inline Labels numbered(const std::string& prefix, std::size_t count) {
    Labels labels;
    for (std::size_t i = 0; i < count; ++i) labels.push_back(prefix + std::to_string(i));
    return labels;
}

inline std::size_t rows(const Matrix& m) { return m.shape(0); }
inline std::size_t cols(const Matrix& m) { return m.shape(1); }
