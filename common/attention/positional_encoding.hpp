// The sinusoidal positional encoding of Vaswani et al. (2017, section 3.5):
//
//   PE(pos, 2i)   = sin(pos · ω_i)
//   PE(pos, 2i+1) = cos(pos · ω_i),      ω_i = 1 / 10000^(2i / d_model)
//
// Each pair of columns (2i, 2i+1) is a point turning on a circle, at its own
// speed ω_i: the first pair turns once every 2π ≈ 6.3 positions, the last one
// almost 10000 times slower. Added to the embeddings, X + PE, it tells attention
// where each token stands.
//
// Shapes: PE (n × d_model), one row per position 0 … n−1. An odd d_model ends
// with a lone sine column (its cosine partner would be column d_model).
#pragma once

#include <cstddef>

#include "common/numbers/matrix.hpp"

// ω_i = 1 / 10000^(2i / d_model): the angular speed of the pair of columns (2i, 2i+1).
double pe_frequency(std::size_t i, std::size_t d_model);

// PE (n × d_model) for the positions 0 … n−1. Computed in double, stored as float.
Matrix sinusoidal_encoding(std::size_t n, std::size_t d_model);

// M_k (d_model × d_model): the matrix with PE(pos + k) = PE(pos) · M_k for every
// pos, the reason the paper gives for sinusoids ("PE_{pos+k} can be represented
// as a linear function of PE_pos"). It is block diagonal, one 2×2 rotation per
// pair (row vectors, so the block is the transpose of the column-vector form):
//
//   [ cos ω_i k   −sin ω_i k ]
//   [ sin ω_i k    cos ω_i k ]
//
// It depends on k and d_model only, never on pos. An odd d_model's last column
// has no cosine to rotate with: its row and column of M_k are zero, so only
// the first d_model − 1 columns obey the identity.
Matrix pe_shift_matrix(std::size_t k, std::size_t d_model);
