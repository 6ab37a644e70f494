// Matrix products through BLAS (OpenBLAS). Plain functions, so that a chapter
// does not compile xtensor-blas itself.
#pragma once

#include "common/math/matrix.hpp"

// a · b: (n × k) · (k × m) → (n × m)
Matrix matmul(const Matrix& a, const Matrix& b);

// a · bᵀ: (n × k) · (m × k)ᵀ → (n × m). BLAS reads b transposed; no copy is made.
Matrix matmul_transposed(const Matrix& a, const Matrix& b);

// mᵀ, as a contiguous matrix. (r × c) → (c × r)
Matrix transposed(const Matrix& m);
