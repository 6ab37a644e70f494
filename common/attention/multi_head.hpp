// Multi-head attention's bookkeeping: cutting matrices into heads and gluing
// the heads back together.
//
//   h      number of heads; d_k = d_model / h (and d_v = d_k)
//   Heads  (h × n × d_k): head i's matrix is heads[i], an (n × d_k) block
//
// Head i owns columns [i·d_k, (i+1)·d_k) of W_Q, W_K and W_V (so of Q, K and V),
// and rows [i·d_v, (i+1)·d_v) of W_O.
#pragma once

#include <vector>

#include <xtensor/xtensor.hpp>

#include "common/numbers/matrix.hpp"

using Heads = xt::xtensor<float, 3>;  // (h × n × d_k)

// Throws InputError unless d_model is a positive multiple of h ≥ 1.
void require_divisible(std::size_t d_model, std::size_t h);

// Columns [i·w, (i+1)·w) of m, w = cols(m) / h, copied into a contiguous matrix
// (BLAS cannot take a column slice of a row-major matrix directly). (r × w)
Matrix head_columns(const Matrix& m, std::size_t h, std::size_t i);

// Rows [i·w, (i+1)·w) of m, w = rows(m) / h. (w × c)
Matrix head_rows(const Matrix& m, std::size_t h, std::size_t i);

// (n × h·d_k) → (h × n × d_k): reshape to (n × h × d_k), then swap the first two
// axes, as PyTorch does with q.view(n, h, d_k).transpose(0, 1). PyTorch's result is
// a strided view of m's memory; this returns a new array, each head's block packed.
Heads split_heads(const Matrix& m, std::size_t h);

// (h × n × d_k) → (n × h·d_k): the inverse of split_heads, the "concat" of the heads.
Matrix merge_heads(const Heads& heads);

// One head's (n × d_k) block as a matrix.
Matrix head(const Heads& heads, std::size_t i);

struct MultiHeadSteps {
    Heads weights;  // (h × n × m)  each head's attention weights
    Matrix concat;  // (n × h·d_v)  the heads' outputs side by side
    Matrix output;  // (n × d_model) concat · W_O
};

// Multi-head self-attention with one split matrix: Q = X · W_Q for every head at
// once, split into (h × n × d_k), attention on each head's block, merged back,
// projected by W_O.
//   X (n × d_model), W_Q, W_K, W_V (d_model × h·d_k), W_O (h·d_v × d_model)
MultiHeadSteps multi_head_attention(const Matrix& X, const Matrix& W_Q, const Matrix& W_K, const Matrix& W_V,
                                    const Matrix& W_O, std::size_t h);
