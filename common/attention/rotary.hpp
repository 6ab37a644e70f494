// Rotary position embeddings (RoPE, Su et al. 2021) on a whole matrix at once: each pair of
// columns (2p, 2p+1) is a complex number a + ib, and turning it by the angle φ is multiplying
// it by e^{iφ} = cos φ + i sin φ:
//
//   θ_p = base^(−2p/d),  p = 0 … d/2 − 1;   row t stands at position offset + t
//   a' = a · cos φ − b · sin φ,   b' = a · sin φ + b · cos φ,   φ = (offset + t) · θ_p
//
// written as four element-wise products of (n × d/2) matrices: the even columns, the odd
// columns, and the tables cos φ and sin φ. Chapter 14 writes the same turn as a loop over the
// pairs (its exercise); common/reference/rope_by_loops is the reference in double.
//
// Shapes: M (n × d), d even → (n × d).
#pragma once

#include <cstddef>

#include "common/numbers/matrix.hpp"

Matrix rotary(const Matrix& M, std::size_t offset, double base = 10000.0);
