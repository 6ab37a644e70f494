// The sinusoidal positional encoding written straight from the paper (Vaswani et al. 2017,
// section 3.5), one entry at a time in double: the reference a chapter's float32 PE is
// compared with.
//
//   PE(pos, 2i)   = sin(pos / 10000^(2i / d_model))
//   PE(pos, 2i+1) = cos(pos / 10000^(2i / d_model))
//
// The power is taken as exp(−(2i / d_model) · ln 10000), not with std::pow, so that the
// reference does not repeat the code it checks.
#pragma once

#include <cstddef>

#include "common/numbers/matrix.hpp"

// PE(pos, c) for an encoding of width d_model.
double pe_by_formula(std::size_t pos, std::size_t c, std::size_t d_model);

// The largest |PE(pos, c) − pe_by_formula(pos, c, cols(PE))| over PE (n × d_model), rows
// being the positions 0 … n−1; infinity when an entry is NaN.
double pe_formula_error(const Matrix& PE);
