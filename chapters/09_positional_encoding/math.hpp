// Chapter 09 · the mathematics: positional encoding.
//
// Nothing in softmax(Q · Kᵀ / √d_k) · V says where a token stands: permute the
// tokens and the outputs are permuted the same way. The paper adds a position
// signal, the sinusoidal encoding, and runs attention on X + PE:
//
//   PE(pos, 2i) = sin(pos · ω_i),   PE(pos, 2i+1) = cos(pos · ω_i),   ω_i = 1 / 10000^(2i/d_model)
//   PE(pos + k) = PE(pos) · M_k     (M_k block diagonal: one 2×2 rotation per pair)
//
// Shapes: X, PE, X + PE (n × d_model); W_Q, W_K, W_V (d_model × d_k) from
// data/projections/ (chapter 05); Q, K, V, output (n × d_k); M_k (d_model × d_model).
#pragma once

#include <vector>

#include "common/math/attention.hpp"
#include "common/math/matrix.hpp"
#include "common/math/permutation.hpp"

struct Projections {
    Matrix W_Q, W_K, W_V;  // (d_model × d_k) each
};

// Self-attention written out as loops in double, sharing nothing with common/math:
// output_q = Σ_j softmax_j(q · k_j / √d_k) v_j, with q = x_q · W_Q (and k, v).
struct AttentionByLoops {
    Matrix weights;           // (n × n)
    Matrix output;            // (n × d_v)
    double score_size = 0.0;  // max Σ_c |q_c|·|k_jc| / √d_k, |q_c| ≤ Σ_d |x_d w_dc|: what rounding is relative to
    double value_size = 0.0;  // max |v|
};

// Everything the lesson shows, computed once.
struct PositionalLesson {
    Matrix X_b;                       // (n × d_model) sentence B: the rows of X in another order
    AttentionSteps plain_a, plain_b;  // self-attention on X and on X_B
    AttentionByLoops plain_a_by_loops;  // the same as plain_a, as loops in double
    Matrix PE;                        // (n × d_model) positional_encoding(n, d_model)
    Matrix X_plus_PE, X_b_plus_PE;    // (n × d_model)
    AttentionSteps pe_a, pe_b;        // self-attention on X + PE and on X_B + PE
    AttentionByLoops pe_a_by_loops;   // the same as pe_a, as loops in double
    Matrix M_k;                       // (d_model × d_model) the shift by k positions
    Matrix moved, PE_to;              // (max_pos × d_model − d_model mod 2): PE(pos) · M_k and PE(pos + k)
    Matrix PE_long;                   // (max_pos × d_pe)
    double formula_error = 0.0;       // max |PE − the paper's formula in double|, PE and PE_long
    std::vector<std::size_t> starts;  // the positions of PE_dots' rows
    Matrix PE_dots;                   // (starts + 1 × 8) PE(pos) · PE(pos + k), last row Σ_i cos(ω_i k)
};

// The sinusoidal encoding, one row per position: PE(pos, 2i) = sin(pos · ω_i),
// PE(pos, 2i+1) = cos(pos · ω_i), ω_i = 1 / 10000^(2i/d_model). (n × d_model)
Matrix positional_encoding(std::size_t n, std::size_t d_model);

// Self-attention of chapter 05 on the rows of X. (n × d_model) → output (n × d_v)
AttentionSteps self_attention(const Matrix& X, const Projections& W);

AttentionByLoops attention_by_loops(const Matrix& X, const Projections& W);

// The largest |PE(pos, c) − the paper's formula|, the formula written again in double
// with exp/log instead of pow. PE (n × d_model)
double pe_formula_error(const Matrix& PE);

// PE(pos) · PE(pos + k) for pos in `starts` and k = 0 … ks−1 (in double), then a
// last row Σ_i cos(ω_i k), the closed form.
Matrix pe_dots(const std::vector<std::size_t>& starts, std::size_t ks, std::size_t d_pe);

PositionalLesson positional_lesson(const Matrix& X, const Projections& W, const Order& order, std::size_t shift,
                                   std::size_t max_pos, std::size_t d_pe);
