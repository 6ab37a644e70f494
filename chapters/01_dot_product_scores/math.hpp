// Chapter 01 · the mathematics: dot-product scores.
//
// Every token asks of every other: "how much are you like what I am looking
// for?" With no learned weights at all, the answer is the dot product of the
// two embeddings:
//
//   score(q, k) = q · k = Σ_d q_d k_d
//
// Shapes: X (n × d_model), one token per row; scores (n × n).
#pragma once

#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"

// Everything the lesson shows, computed once.
struct DotProductScores {
    Matrix scores_by_loops;  // (n × n) scores[i, j] = Σ_d X[i, d] · X[j, d], three loops
    Matrix scores;           // (n × n) X · Xᵀ, one matrix product

    // Rows are queries, columns keys: both are the sequence's tokens.
    MatrixList matrices() const {
        return {{"scores_by_loops", scores_by_loops, "Σ_d X[i, d] · X[j, d]", "tokens", "tokens", MatrixKind::scores},
                {"scores", scores, "X · Xᵀ", "tokens", "tokens", MatrixKind::scores}};
    }
};

// The definition, written out: one dot product per (query, key) pair.
Matrix scores_by_loops(const Matrix& X);

// Both forms of the scores of every token against every token.
DotProductScores dot_product_scores(const Matrix& X);
