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

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <xtensor/xtensor.hpp>

using Matrix = xt::xtensor<float, 2>;  // row-major, float32 like real models
using Vector = xt::xtensor<float, 1>;
template <class T>
using Mat = xt::xtensor<T, 2>;  // a matrix of float or double (the trained models, their checks)
using Tokens = std::vector<std::size_t>;  // one sequence: token ids in [0, V)
using Labels = std::vector<std::string>;  // one name per row or column

// Labels for rows or columns that have no names: numbered("t", 3) → t0, t1, t2.
inline Labels numbered(const std::string& prefix, std::size_t count) {
    Labels labels;
    for (std::size_t i = 0; i < count; ++i) labels.push_back(prefix + std::to_string(i));
    return labels;
}

// Of any matrix, float or double, without a copy (a `const Matrix&` here made a float copy of
// every double matrix it was given: chapter 23's check in double spent 4 s doing so).
template <class M>
std::size_t rows(const M& m) { return m.shape(0); }
template <class M>
std::size_t cols(const M& m) { return m.shape(1); }

// The position of `label` in `labels`; labels.size() when it is not there.
inline std::size_t index_of(const Labels& labels, const std::string& label) {
    return static_cast<std::size_t>(std::find(labels.begin(), labels.end(), label) - labels.begin());
}

// The column of the largest entry of row i (the first one on a tie), like np.argmax(m[i]).
inline std::size_t argmax_of_row(const Matrix& m, std::size_t i) {
    std::size_t best = 0;
    for (std::size_t j = 1; j < cols(m); ++j)
        if (m(i, j) > m(i, best)) best = j;
    return best;
}

// True when no entry is inf or NaN.
inline bool all_finite(const Matrix& m) {
    return std::all_of(m.begin(), m.end(), [](float v) { return std::isfinite(v); });
}
