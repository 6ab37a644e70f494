// Some rows of a matrix as a matrix of their own, and back: the rows `at` (row indices, in the
// order given) of X. Loops, not xtensor views: a chapter's math.cpp is compiled on every save of
// an exercise, and each kind of view or expression is a template the compiler instantiates anew.
//
//   take_rows(V, {t})                        row t of V, (1 × d_v)
//   put_rows(out, {t}, o)                    row t of out set to o's row
//   take_rows(Q, row_range(begin, end))      rows begin … end − 1 of Q
#pragma once

#include <cstddef>
#include <vector>

#include "common/numbers/matrix.hpp"

// The rows begin, begin + 1, …, end − 1.
inline std::vector<std::size_t> row_range(std::size_t begin, std::size_t end) {
    std::vector<std::size_t> at;
    for (std::size_t i = begin; i < end; ++i) at.push_back(i);
    return at;
}

// (|at| × cols(X)): row i is X's row at[i].
inline Matrix take_rows(const Matrix& X, const std::vector<std::size_t>& at) {
    Matrix out = Matrix::from_shape({at.size(), cols(X)});
    for (std::size_t i = 0; i < at.size(); ++i)
        for (std::size_t c = 0; c < cols(X); ++c) out(i, c) = X(at[i], c);
    return out;
}

// X's row at[i] set to block's row i, for every i.
inline void put_rows(Matrix& X, const std::vector<std::size_t>& at, const Matrix& block) {
    for (std::size_t i = 0; i < at.size(); ++i)
        for (std::size_t c = 0; c < cols(X); ++c) X(at[i], c) = block(i, c);
}
