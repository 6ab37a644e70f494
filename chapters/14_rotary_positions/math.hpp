// Chapter 14 · the mathematics: rotary position embeddings (RoPE).
//
// Chapter 09 added a position signal to the embeddings, X + PE. RoPE (Su et al.,
// "RoFormer", 2021) leaves X alone and turns the queries and keys instead: at
// position pos, the pair of dimensions (2i, 2i+1) turns by the angle pos · θ_i,
// with the frequencies of chapter 09:
//
//   θ_i = base^(−2i/d_k),   i = 0 … d_k/2 − 1                 (base = 10000)
//   (a, b) = (q_2i, q_2i+1)  →  (a cos pos·θ_i − b sin pos·θ_i,  a sin pos·θ_i + b cos pos·θ_i)
//
// Each pair is multiplied by a 2×2 rotation R(pos·θ_i), and Rᵀ(α) R(β) = R(β − α), so
//
//   q_rot(m) · k_rot(n) = Σ_i q_pair_i · R((n − m)·θ_i) k_pair_i
//
// depends on the distance m − n only: shift every position by P and no score moves.
// Two layouts of the pairs exist in public code: interleaved (2i, 2i+1), as in the
// RoFormer paper, and split halves (i, i + d_k/2), as in GPT-NeoX and Hugging Face's
// Llama. They give the same scores once the dimensions are permuted to match.
//
// Shapes: X (n × d_model); W_Q, W_K (d_model × d_k), d_k even; Q, K, Q_rot, K_rot
// (n × d_k); angles (n × d_k/2); scores, weights (n × n). Positions offset … offset+n−1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/attention/permutation.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"

// θ_i = base^(−2i/d_k) for i = 0 … d_k/2 − 1: the angle pair i turns by per position.
std::vector<double> rope_frequencies(std::size_t d_k, double base);

// angles (n × d_k/2): (offset + t) · θ_i for the row t, in double, stored as float.
Matrix rope_angles(std::size_t n, std::size_t offset, const std::vector<double>& theta);

// Row t of M (n × d) is the vector at position offset + t: each pair (2i, 2i+1) turned
// by (offset + t) · θ_i. The RoFormer paper's layout.
Matrix rotate_interleaved(const Matrix& M, std::size_t offset, const std::vector<double>& theta);

// The same turn for the layout of GPT-NeoX and Hugging Face's Llama: pair i is the
// columns (i, i + d/2).
Matrix rotate_split_halves(const Matrix& M, std::size_t offset, const std::vector<double>& theta);

// The column order that moves an interleaved layout to split halves: 0, 2, 4, … then 1, 3, 5, …
Order halves_order(std::size_t d);

// The sinusoidal encoding of chapter 09 at the positions offset … offset+n−1 (n × d_model).
Matrix sinusoids_at(std::size_t n, std::size_t offset, std::size_t d_model, double base);

// One pair (a, b) of a query turned by α: what the one-rotation step's table shows.
struct PairTurn {
    float a, b, alpha, cos_alpha, sin_alpha, a_rot, b_rot;  // (a, b) → (a_rot, b_rot) by α
    float length, length_rot;                               // |(a, b)| and |(a_rot, b_rot)|
};

// Everything the lesson shows, computed once.
struct RotatedScores {
    std::size_t offset = 0;             // the first position
    double base = 10000.0;              // of θ_i = base^(−2i/d_k)
    Matrix W_Q, W_K;                    // (d_model × d_k) the projections
    std::vector<double> theta;          // (d_k/2) the frequencies
    std::vector<double> periods;        // (d_k/2) 2π / θ_i: the positions pair i takes to turn once
    Matrix Q, K;                        // (n × d_k) X · W_Q, X · W_K
    Matrix angles;                      // (n × d_k/2) positions · θ
    Matrix Q_rot, K_rot;                // (n × d_k) interleaved, at positions offset + t
    Matrix scores, weights;             // (n × n) Q_rot · K_rotᵀ, softmax(scores / √d_k)
    std::size_t example = 0;            // the query the one-rotation step turns: its shortest pair is longest
    std::vector<PairTurn> example_pairs;  // (d_k/2) its pairs, turned
    std::vector<std::size_t> offsets;   // the offsets P compared with offset 0
    Matrix offset_changes;              // (offsets × 2) max |scores(P) − scores(0)|: RoPE, X + PE
    Matrix pe_scores_0, pe_scores;      // (n × n) (X + PE) W_Q · ((X + PE) W_K)ᵀ at offset 0 and offset
    Matrix Q_halves, K_halves;          // (n × d_k) Q, K with the columns in halves_order
    Matrix Q_rot_halves, K_rot_halves;  // (n × d_k) split-halves rotation of Q_halves, K_halves
    Matrix scores_halves;               // (n × n) Q_rot_halves · K_rot_halvesᵀ
    Matrix Q_rot_mixed, K_rot_mixed;    // (n × d_k) split-halves rotation of Q, K as they are
    Matrix scores_mixed, weights_mixed; // (n × n) what the mixed-up pairing scores
    float halves_change = 0, mixed_change = 0, mixed_weight_change = 0;  // max |… − scores|, |… − weights|
    Matrix decay;                       // (distances × 2) q = k = ones: score / d, RoFormer's bound / its value at 0
    std::size_t decay_d = 0;            // the width of the decay's vectors
    std::vector<double> distances, decay_ones, decay_bound;  // decay's columns as curves: 0 … max_distance
    std::vector<std::size_t> decay_rows;  // the distances the decay step's table shows: 0, 1, 10, 50, half, last

    // In the order the lesson shows them. Rows are "positions" (each token at its
    // position) or "dimensions"; columns the projections' "query dims" and "key dims",
    // the queries' in halves order ("halves"), or the "angles" pos·θ_i. The other layouts'
    // matrices that no step prints, offset_changes and decay are numbered.
    MatrixList matrices() const;
};

// The n × n float matrices this lesson holds at its peak, counted from the structs above, so
// that an --input too long for memory is refused before anything is computed:
//   RotatedScores: scores, weights, pe_scores_0, pe_scores, scores_halves, scores_mixed,
//   weights_mixed                                                                  7
//   the self-checks' references, one at a time: the largest, the scores summed in
//   double (2 floats each)                                                          2
//   a margin (while rotated_scores compares the offsets it holds 7 at most)            1
constexpr std::uint64_t square_matrices_held = 10;

// X (n × d_model), W_Q and W_K (d_model × d_k, d_k even), the first position `offset`,
// base > 1; the decay curves for vectors of width decay_d at distances 0 … max_distance.
RotatedScores rotated_scores(const Matrix& X, const Matrix& W_Q, const Matrix& W_K, std::size_t offset, double base,
                       std::size_t decay_d, std::size_t max_distance);
