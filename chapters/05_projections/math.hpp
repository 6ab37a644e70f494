// Chapter 05 · the mathematics: learned projections Q, K, V.
//
// Until now a token's query, key and value were all its embedding. A
// transformer gives each token three different vectors, by three learned matrices:
//
//   Q = X · W_Q     what each token is looking for
//   K = X · W_K     what each token offers to be found by
//   V = X · W_V     what each token hands back when it is found
//
//   Attention(Q, K, V) = softmax(Q · Kᵀ / √d_k) · V        (Vaswani et al. 2017, eq. 1)
//   output_i = Σ_j softmax_j(q_i · k_j / √d_k) v_j          the same, one query at a time
//
//   q_i · k_j = x_i · (W_Q · W_Kᵀ) · x_jᵀ                   why the scores need not be symmetric
//
// Shapes: X (n × d_model); W_Q, W_K (d_model × d_k); W_V (d_model × d_v);
// Q, K (n × d_k); V (n × d_v); scores, scaled_scores, weights (n × n);
// output (n × d_v); W_QK = W_Q · W_Kᵀ (d_model × d_model).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "common/attention/attention.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"

// A projection of the sequence: X (n × d_model) · W (d_model × d_out) → (n × d_out).
// Q = project(X, W_Q), K = project(X, W_K), V = project(X, W_V).
Matrix project(const Matrix& X, const Matrix& W);

// The loop form of attention, every intermediate one number at a time.
struct LoopForm {
    Matrix scores;         // (n × m)  q_i · k_j
    Matrix scaled_scores;  // (n × m)  q_i · k_j / √d_k
    Matrix weights;        // (n × m)  softmax_j of each row
    Matrix output;         // (n × d_v) Σ_j weights(i, j) v_j
};

// output_i = Σ_j softmax_j(q_i · k_j / √d_k) v_j with nothing but loops, summed in
// double (rounded to float at the end): the papers' form, one query at a time. The
// self-checks compare it, and the matrix form, with common/reference/'s loops.
LoopForm attention_by_loops(const Matrix& Q, const Matrix& K, const Matrix& V);

// The terms of query i's sum: row j is weights(i, j) · v_j. (m × d_v)
Matrix weighted_values(const Matrix& weights, const Matrix& V, std::size_t i);

// The pair whose scores differ most, scores(i, j) ≥ scores(j, i).
struct Asymmetry {
    std::size_t i = 0, j = 0;
    float amount = 0.0f;  // |scores(i, j) − scores(j, i)|
};
Asymmetry largest_asymmetry(const Matrix& scores);

// How many queries score another token higher than themselves (argmax of the row ≠ i).
std::size_t queries_preferring_another(const Matrix& scores);

// m (d × d) equals its transpose, entry by entry, within `tolerance`.
bool is_symmetric(const Matrix& m, float tolerance);

// The (row, column) of m's `count` largest entries, largest first (equal entries in row order).
std::vector<std::pair<std::size_t, std::size_t>> largest_entries(const Matrix& m, std::size_t count);

// Everything the lesson shows of one sequence.
struct Projected {
    Matrix W_Q, W_K, W_V;      // the projections as given: (d_model × d_k), (d_model × d_k), (d_model × d_v)
    Matrix Q, K, V;            // (n × d_k), (n × d_k), (n × d_v)
    AttentionSteps attention;  // the matrix form (common/attention/attention)
    LoopForm loops;            // the loop form
    Matrix last_query_terms;   // (n × d_v) weights(n−1, j) · v_j, the last query's terms
    Asymmetry asymmetry;       // of attention.scores
    std::size_t not_self = 0;  // queries whose best key is another token
    Matrix W_QK;               // (d_model × d_model) W_Q · W_Kᵀ
    bool qk_symmetric = false;  // W_QK = W_QKᵀ
    std::vector<std::pair<std::size_t, std::size_t>> strongest;  // W_QK's 5 largest entries, largest first

    // In the order the lesson shows them; the loop form is printed for the last query only
    // (--dump writes all of it). Labels: "tokens", "dimensions" (W's rows), and the
    // columns of each W: "query columns", "key columns", "value columns".
    MatrixList matrices() const {
        return {{"W_Q", W_Q, "", "dimensions", "query columns"},
                {"W_K", W_K, "", "dimensions", "key columns"},
                {"W_V", W_V, "", "dimensions", "value columns"},
                {"Q", Q, "X · W_Q", "tokens", "query columns"},
                {"K", K, "X · W_K", "tokens", "key columns"},
                {"V", V, "X · W_V", "tokens", "value columns"},
                {"scores", attention.scores, "Q · Kᵀ", "tokens", "tokens", MatrixKind::scores},
                {"scaled_scores", attention.scaled_scores, describe("scores / √", cols(K)), "tokens", "tokens",
                 MatrixKind::scores},
                {"weights", attention.weights, "softmax(scaled_scores)", "tokens", "tokens",
                 MatrixKind::attention_weights},
                {"output", attention.output, "weights · V", "tokens", "value columns"},
                {"loops_scores", loops.scores, "q_i · k_j", "tokens", "tokens", MatrixKind::scores},
                {"loops_scaled_scores", loops.scaled_scores, "q_i · k_j / √d_k", "tokens", "tokens",
                 MatrixKind::scores},
                {"loops_weights", loops.weights, "softmax_j(q_i · k_j / √d_k)", "tokens", "tokens",
                 MatrixKind::attention_weights},
                {"loops_output", loops.output, "Σ_j softmax_j(q_i · k_j / √d_k) v_j", "tokens", "value columns"},
                {"last_query_terms", last_query_terms, "weights(n − 1, j) · v_j", "tokens", "value columns"},
                {"W_QK", W_QK, "W_Q · W_Kᵀ", "dimensions", "dimensions"}};
    }
};
Projected project_and_attend(const Matrix& X, const Matrix& W_Q, const Matrix& W_K, const Matrix& W_V);

// The same sentence without projections and with them.
struct RawAndProjected {
    Matrix X;                   // (n × d_model) the sentence
    Matrix raw_scores;          // (n × n)  X · Xᵀ
    Matrix raw_weights;         // (n × n)  softmax(X · Xᵀ / √d_model)
    Matrix Q, K, V;             // (n × d_k), (n × d_k), (n × d_v)
    AttentionSteps projected;   // softmax(Q · Kᵀ / √d_k) · V

    // The law sentence's, named law_…: the lesson prints the row of "its" and draws the
    // two maps of weights (--svg); --dump writes them all. Its tokens are "law tokens".
    MatrixList matrices() const {
        return {{"law_X", X, "", "law tokens", "dimensions"},
                {"law_scores_raw", raw_scores, "law_X · law_Xᵀ", "law tokens", "law tokens", MatrixKind::scores},
                {"law_scores", projected.scores, "law_Q · law_Kᵀ", "law tokens", "law tokens", MatrixKind::scores},
                {"law_scaled_scores", projected.scaled_scores, "law_scores / √d_k", "law tokens", "law tokens",
                 MatrixKind::scores},
                {"law_weights_raw", raw_weights, "softmax(law_X · law_Xᵀ / √d_model)", "law tokens", "law tokens",
                 MatrixKind::attention_weights},
                {"law_Q", Q, "law_X · W_Q", "law tokens", "query columns"},
                {"law_K", K, "law_X · W_K", "law tokens", "key columns"},
                {"law_V", V, "law_X · W_V", "law tokens", "value columns"},
                {"law_weights", projected.weights, "softmax(law_Q · law_Kᵀ / √d_k)", "law tokens", "law tokens",
                 MatrixKind::attention_weights},
                {"law_output", projected.output, "law_weights · law_V", "law tokens", "value columns"}};
    }
};
RawAndProjected raw_and_projected(const Matrix& X, const Matrix& W_Q, const Matrix& W_K, const Matrix& W_V);
