// Chapter 02 · the mathematics: softmax, from scores to weights.
//
// A token takes in "a bit of each" other token, so it needs weights: numbers
// that are never negative and add up to 1 across the row. The softmax turns any
// row of scores into such weights, and keeps their order:
//
//   weights(i, j) = exp(s_ij) / Σ_j' exp(s_ij')                      (naive)
//   m_i = max_j s_ij;  weights(i, j) = exp(s_ij − m_i) / Σ_j' exp(s_ij' − m_i)   (stable)
//
// The two are the same function (exp(−m_i) cancels above and below the bar),
// but in float32 exp(s) overflows for s > 88.72: only the stable form survives
// large scores. Its one knob is the temperature T: softmax(scores / T).
//
// Shapes: X (n × d_model), one token per row; scores, weights (n × n).
#pragma once

#include <vector>

#include "common/numbers/input_error.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"

// Everything the lesson shows, computed once.
struct NaiveAndStable {
    Matrix scores;                  // (n × n) X · Xᵀ, the scores of chapter 01
    Matrix example_scores;          // (2 × 3) two hand-made rows, with negative scores
    Matrix divided_by_sum;          // (2 × 3) each of them divided by its row sum
    Matrix example_weights;         // (2 × 3) their naive softmax
    Matrix naive_weights;           // (n × n) the naive loop on scores
    Matrix scores_x100;             // (n × n) 100 · scores
    Matrix naive_weights_x100;      // (n × n) the naive loop on 100 · scores (nan where it overflows)
    Matrix stable_weights_x100;     // (n × n) the stable loop on 100 · scores
    Matrix stable_weights;          // (n × n) the stable loop on scores
    std::vector<bool> overflows;       // n: Σ_j exp(scores_ij) > float's maximum
    std::vector<bool> overflows_x100;  // n: Σ_j exp(100 · scores_ij) > float's maximum
    std::vector<bool> top_exp_finite_x100;  // n: exp of the row's top score (× 100) fits, only the sum overflows
    double naive_vs_stable = 0.0;   // max |naive − stable| on scores, over the rows where Σ exp fits
    double naive_vs_stable_x100 = 0.0;  // the same on 100 · scores
    std::size_t tied_row;           // the first row whose largest score appears twice; n if none

    float temperature = 1.0f;
    Matrix scaled;                  // (n × n) scores / T
    Matrix weights;                 // (n × n) softmax_rows(scores / T), the shared function
    std::vector<double> entropy;    // n: −Σ_j p_ij ln p_ij of each row of weights

    std::vector<float> sweep;              // the temperatures swept, ascending (T among them)
    std::vector<double> sweep_entropy;     // mean row entropy of softmax_rows(scores / t)
    std::vector<double> sweep_largest;     // mean largest weight of softmax_rows(scores / t)

    // In the order the lesson shows them; scores_x100, stable_weights and scaled are
    // not printed (--dump writes them). The hand-made rows have labels of their own.
    MatrixList matrices() const {
        return {{"scores", scores, "X · Xᵀ", "tokens", "tokens", MatrixKind::scores},
                {"example_scores", example_scores, "", "example rows", "example keys", MatrixKind::scores},
                {"divided_by_sum", divided_by_sum, "s / Σ_j s", "example rows", "example keys"},
                {"example_weights", example_weights, "exp(s) / Σ_j exp(s)", "example rows", "example keys",
                 MatrixKind::attention_weights},
                {"naive_weights", naive_weights, "exp(scores) / Σ_j exp(scores)", "tokens", "tokens",
                 MatrixKind::attention_weights},
                {"scores_x100", scores_x100, "100 · scores", "tokens", "tokens", MatrixKind::scores},
                {"naive_weights_x100", naive_weights_x100, "exp(100 · scores) / Σ_j exp(100 · scores)", "tokens",
                 "tokens"},
                {"stable_weights_x100", stable_weights_x100, "softmax(100 · scores)", "tokens", "tokens",
                 MatrixKind::attention_weights},
                {"stable_weights", stable_weights, "softmax(scores)", "tokens", "tokens",
                 MatrixKind::attention_weights},
                {"scores_over_T", scaled, describe("scores / ", temperature), "tokens", "tokens", MatrixKind::scores},
                {"weights", weights, describe("softmax_rows(scores / ", temperature, ")"), "tokens", "tokens",
                 MatrixKind::attention_weights}};
    }
};

// exp(s) / Σ exp(s), row by row, exactly as the formula reads. (n × m) → (n × m)
Matrix naive_softmax_rows(const Matrix& scores);

// The same, with the row maximum subtracted first (llama2.c's softmax). (n × m) → (n × m)
Matrix stable_softmax_rows(const Matrix& scores);

// Each score divided by its row's sum: the "obvious" normalisation. (n × m) → (n × m)
Matrix divide_by_row_sum(const Matrix& scores);

// Whether Σ_j exp(s_ij) is too large for a float (computed in double, which
// holds up to e^709): then the naive row fails.
bool sum_of_exp_overflows(const Matrix& scores, std::size_t i);

// The largest |naive − stable| over the rows where Σ exp stays below float's maximum.
double max_difference_where_sum_fits(const Matrix& naive, const Matrix& stable, const Matrix& scores);

// Both loops on X · Xᵀ and on 100 · X · Xᵀ, then softmax_rows at temperature T and a sweep of T.
NaiveAndStable naive_and_stable(const Matrix& X, float temperature);
