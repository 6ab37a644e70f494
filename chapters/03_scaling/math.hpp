// Chapter 03 · the mathematics: scaling the scores by √d_k.
//
//   weights = softmax(Q · Kᵀ / √d_k)
//
// If the entries of a query q and a key k are independent with mean 0 and
// variance 1, then q · k = Σ_d q_d k_d is a sum of d_k independent products of
// variance 1, so var(q · k) = d_k: the wider the head, the larger the scores.
// Large scores saturate the softmax (one weight near 1, the rest near 0), and a
// saturated softmax has almost no gradient to learn from. Dividing by √d_k
// brings the variance back to 1 for every d_k.
//
// Shapes: Q (n × d_k), K (m × d_k); scores, scaled_scores, weights (n × m).
// Here the queries and keys are random rows, from the project's own generator.
#pragma once

#include <cstdint>
#include <vector>

#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"

// The variance of q · k measured over `pairs` random pairs of width d_k.
struct VarianceRow {
    std::size_t d_k;
    double variance;         // sample variance of q · k over the pairs
    double scaled_variance;  // sample variance of q · k / √d_k
    double standard_error;   // of the sample variance, from the closed form
    double tolerance;        // in standard errors: see variance_tolerance
};

// How saturated softmax(q · k) and softmax(q · k / √d_k) are at one width.
struct SaturationRow {
    std::size_t d_k;
    double entropy, entropy_scaled;    // mean −Σ p ln p of a row
    double largest, largest_scaled;    // mean largest weight of a row
    double jacobian, jacobian_scaled;  // mean ‖diag(p) − p pᵀ‖_F of a row
};

// Everything the lesson shows, computed once.
struct ScaledAndUnscaled {
    std::vector<VarianceRow> variances;  // d_k = 4, 8, 16, …, ≤ max_d_k
    Matrix Q, K;                         // (n × d_k) the sample: 6 tokens, d_k = 64
    Matrix scores;                       // (n × n) Q · Kᵀ
    Matrix scaled_scores;                // (n × n) Q · Kᵀ / √d_k
    Matrix weights_unscaled;             // (n × n) softmax_rows(scores)
    Matrix weights;                      // (n × n) softmax_rows(scaled_scores)
    Matrix classic_scores;               // (1 × 2) 112 and 96
    Matrix classic_scaled;               // (1 × 2) divided by √64 = 8
    Matrix classic_unscaled_weights;     // (1 × 2) softmax_rows(classic_scores)
    Matrix classic_weights;              // (1 × 2) softmax_rows(classic_scaled)
    std::size_t saturation_queries = 256, saturation_keys = 16;
    std::vector<SaturationRow> saturation;  // one row per d_k

    // The sample, in the order the lesson shows it; its tokens and dimensions are numbered.
    MatrixList matrices() const {
        return {{"Q", Q, "N(0, 1)", "tokens", "dimensions"},
                {"K", K, "N(0, 1)", "tokens", "dimensions"},
                {"scores", scores, "Q · Kᵀ", "tokens", "tokens", MatrixKind::scores},
                {"scaled_scores", scaled_scores, "Q · Kᵀ / √64", "tokens", "tokens", MatrixKind::scores},
                {"weights_unscaled", weights_unscaled, "softmax(Q · Kᵀ)", "tokens", "tokens",
                 MatrixKind::attention_weights},
                {"weights", weights, "softmax(Q · Kᵀ / √64)", "tokens", "tokens", MatrixKind::attention_weights}};
    }
};

// The sample variance of xs (divided by count − 1), accumulated in double.
double sample_variance(const std::vector<float>& xs);

// The standard error of the sample variance of q · k over `pairs` pairs, for
// N(0, 1) entries: var(s²) = (μ₄ − σ⁴ (N − 3)/(N − 1)) / N with σ² = d_k and
// μ₄ = 3 d_k² + 6 d_k.
double variance_standard_error(std::size_t d_k, std::size_t pairs);

// How many standard errors the measured variance may stray from d_k: the
// two-sided 6-standard-error bound of a normal (exceeded with probability 2e-9),
// moved out for the skew of the sample variance, which at small N has a long
// upper tail (Cornish–Fisher: z + γ (z² − 1) / 6, γ the skewness of s²).
double variance_tolerance(std::size_t d_k, std::size_t pairs);

// Q · Kᵀ / √d_k: scores (n × m) of queries and keys of width d_k, each divided by √d_k,
// so that their variance is 1 again whatever d_k is. (n × m) → (n × m)
Matrix scale_scores(const Matrix& scores, std::size_t d_k);

// ‖J‖_F of the softmax Jacobian of row i, J = diag(p) − p pᵀ. 0 for a one-hot row.
double jacobian_norm(const Matrix& weights, std::size_t i);

// The variance table, the 6-token sample, the two-key example and the saturation
// table, drawn in that order from one generator seeded with `seed`.
ScaledAndUnscaled scaled_and_unscaled(std::uint64_t seed, std::size_t pairs, std::size_t max_d_k);
