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

#include <string>
#include <vector>

#include "common/attention/attention.hpp"
#include "common/attention/permutation.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"

struct Projections {
    Matrix W_Q, W_K, W_V;  // (d_model × d_k) each
};

// One sentence projected: Q = X · W_Q, K = X · W_K (n × d_k), V = X · W_V (n × d_v).
struct Projected {
    Matrix Q, K, V;
};

// Everything the lesson shows, computed once. Sentence A is X; sentence B, X_b, holds
// the same rows in another order; "the followed token" is one word of both.
struct WithAndWithoutPositions {
    Matrix X, X_b;                    // (n × d_model) sentence A, and B: row i of X_b is row order[i] of X
    Projections W;                    // chapter 05's
    std::size_t watched = 0, watched_b = 0;  // the followed token's row in A and in B
    Projected qkv_a, qkv_pe_a;        // sentence A projected, without and with PE
    AttentionSteps plain_a, plain_b;  // self-attention on X and on X_b
    Matrix PE;                        // (n × d_model) positional_encoding(n, d_model)
    Matrix X_plus_PE, X_b_plus_PE;    // (n × d_model)
    AttentionSteps pe_a, pe_b;        // self-attention on X + PE and on X_b + PE
    std::size_t top_a = 0, top_b = 0;  // with PE, the position the followed token weighs most, in A and B
    double pe_change = 0.0;           // with PE, the largest change of the followed token's output
    std::size_t shift = 0;            // k
    Matrix M_k;                       // (d_model × d_model) the shift by k positions
    Matrix moved, PE_to;              // (max_pos × d_model − d_model mod 2): PE(pos) · M_k and PE(pos + k)
    double rotation_error = 0.0;      // max |moved − PE_to|
    Matrix PE_long;                   // (max_pos × d_pe)
    std::vector<std::size_t> starts;  // the positions of PE_dots' rows
    Matrix PE_dots;                   // (starts + 1 × 8) PE(pos) · PE(pos + k), last row Σ_i cos(ω_i k)

    // Labels: "tokens" (A), "tokens B", "dimensions", "values" (W_V's columns),
    // "positions" and "pairs" (PE's rows and columns), "long positions" and "long pairs"
    // (PE_long's), "starts" (PE_dots' rows, then Σ cos(ωk)) and "distances" (k).
    MatrixList matrices() const {
        return {{"X", X, "sentence A", "tokens", "dimensions"},
                {"X_permuted", X_b, "", "tokens B", "dimensions"},
                {"W_Q", W.W_Q, "", "dimensions"},
                {"W_K", W.W_K, "", "dimensions"},
                {"W_V", W.W_V, "", "dimensions", "values"},
                {"output", plain_a.output, "attention(X), sentence A", "tokens", "values"},
                {"output_permuted", plain_b.output, "attention(X_B), sentence B", "tokens B", "values"},
                {"PE", PE, "sinusoidal, one row per position", "positions", "pairs"},
                {"X_plus_PE", X_plus_PE, "X + PE, sentence A", "tokens", "dimensions"},
                {"output_pe", pe_a.output, "attention(X + PE), sentence A", "tokens", "values"},
                {"output_permuted_pe", pe_b.output, "attention(X_B + PE), sentence B", "tokens B", "values"},
                {"M_k", M_k, "rotation by ω_i · " + std::to_string(shift), "pairs", "pairs"},
                {"PE_long", PE_long, "sinusoidal", "long positions", "long pairs"},
                {"PE_dots", PE_dots, "PE(pos) · PE(pos + k)", "starts", "distances"}};
    }
};

// The sinusoidal encoding, one row per position: PE(pos, 2i) = sin(pos · ω_i),
// PE(pos, 2i+1) = cos(pos · ω_i), ω_i = 1 / 10000^(2i/d_model). (n × d_model)
Matrix positional_encoding(std::size_t n, std::size_t d_model);

// X · W_Q, X · W_K, X · W_V. X (n × d_model)
Projected project(const Matrix& X, const Projections& W);

// Self-attention of chapter 05 on the projected rows: softmax(Q · Kᵀ / √d_k) · V (n × d_v)
AttentionSteps self_attention(const Projected& p);

// PE(pos) · PE(pos + k) for pos in `starts` and k = 0 … ks−1 (in double), then a
// last row Σ_i cos(ω_i k), the closed form.
Matrix pe_dots(const std::vector<std::size_t>& starts, std::size_t ks, std::size_t d_pe);

// `watched` is the followed token's row of X; `shift` the k of M_k.
WithAndWithoutPositions with_and_without_positions(const Matrix& X, const Projections& W, const Order& order, std::size_t watched,
                                   std::size_t shift, std::size_t max_pos, std::size_t d_pe);
