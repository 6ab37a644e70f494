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

#include "common/math/attention.hpp"
#include "common/math/matrix.hpp"

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
// double (rounded to float at the end): the independent check of the matrix form.
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

// Everything the lesson shows of one sequence.
struct Projected {
    Matrix Q, K, V;            // (n × d_k), (n × d_k), (n × d_v)
    AttentionSteps attention;  // the matrix form (common/math/attention)
    LoopForm loops;            // the loop form
    Matrix last_query_terms;   // (n × d_v) weights(n−1, j) · v_j, the last query's terms
    Asymmetry asymmetry;       // of attention.scores
    std::size_t not_self = 0;  // queries whose best key is another token
    Matrix W_QK;               // (d_model × d_model) W_Q · W_Kᵀ
    bool qk_symmetric = false;  // W_QK = W_QKᵀ
};
Projected project_and_attend(const Matrix& X, const Matrix& W_Q, const Matrix& W_K, const Matrix& W_V);

// The same sentence without projections and with them.
struct RawAndProjected {
    Matrix raw_scores;          // (n × n)  X · Xᵀ
    Matrix raw_weights;         // (n × n)  softmax(X · Xᵀ / √d_model)
    Matrix Q, K, V;             // (n × d_k), (n × d_k), (n × d_v)
    AttentionSteps projected;   // softmax(Q · Kᵀ / √d_k) · V
};
RawAndProjected raw_and_projected(const Matrix& X, const Matrix& W_Q, const Matrix& W_K, const Matrix& W_V);
