// Chapter @NN@ · the mathematics: @Title@.
//
// A new chapter starts as scaled dot-product self-attention of a sentence, with the
// embeddings as queries, keys and values (Q = K = V = X); say the chapter's own idea here,
// its formula first:
//
//   scaled_scores = X · Xᵀ / √d_model,   weights = softmax(scaled_scores),   output = weights · X
//
// Shapes: X (n × d_model), one token per row; scaled_scores and weights (n × n); output
// (n × d_model).
#pragma once

#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"

// Everything the lesson shows, computed once.
struct SelfAttention {
    Matrix scaled_scores;  // (n × n) Σ_d X[i, d] · X[j, d] / √d_model, by loops
    Matrix weights;        // (n × n) softmax of each row of the shared attention's scores
    Matrix output;         // (n × d_model) weights · X

    // Rows are queries, columns keys: both are the sequence's tokens. The kind says what the
    // page draws (attention weights also as lines between tokens).
    MatrixList matrices() const {
        return {{"scaled_scores", scaled_scores, "X · Xᵀ / √d_model", "tokens", "tokens", MatrixKind::scores},
                {"weights", weights, "softmax(scaled_scores)", "tokens", "tokens", MatrixKind::attention_weights},
                {"output", output, "weights · X", "tokens", "dimensions"}};
    }
};

// The scores of the definition, written out: one scaled dot product per (query, key) pair.
Matrix scaled_scores(const Matrix& X);

// The scores by loops, then attention by the shared function.
SelfAttention self_attention(const Matrix& X);
