// A small matrix written out in a test, row by row: matrix(2, 2, {1, 2, 3, 4}) is [[1, 2], [3, 4]].
#pragma once

#include <initializer_list>

#include "common/numbers/matrix.hpp"

inline Matrix matrix(std::size_t r, std::size_t c, std::initializer_list<float> values) {
    Matrix m = Matrix::from_shape({r, c});
    std::size_t k = 0;
    for (const float v : values) m(k / c, k % c) = v, ++k;
    return m;
}
