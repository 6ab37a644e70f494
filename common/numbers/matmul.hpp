// Matrix products, each sum in a fixed order (fixed_order_product.hpp): the same digits on every
// machine. Plain functions, so that a chapter does not compile the product's templates itself.
#pragma once

#include "common/numbers/matrix.hpp"

// a · b: (n × k) · (k × m) → (n × m)
Matrix matmul(const Matrix& a, const Matrix& b);

// a · bᵀ: (n × k) · (m × k)ᵀ → (n × m). b is read transposed in place; no copy is made.
Matrix matmul_transposed(const Matrix& a, const Matrix& b);

// mᵀ, as a contiguous matrix. (r × c) → (c × r)
Matrix transposed(const Matrix& m);
