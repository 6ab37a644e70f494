#include "chapters/03_scaling/math.hpp"

#include <cmath>

#include "common/attention/softmax.hpp"
#include "common/attention/weight_entropy.hpp"
#include "common/numbers/matmul.hpp"
#include "common/numbers/random.hpp"

double sample_variance(const std::vector<float>& xs) {
    double mean = 0.0;
    for (const float x : xs) mean += x;
    mean /= double(xs.size());
    double sum = 0.0;
    for (const float x : xs) sum += (x - mean) * (x - mean);
    return sum / double(xs.size() - 1);
}

double variance_standard_error(std::size_t d_k, std::size_t pairs) {
    const double d = double(d_k), n = double(pairs);
    const double mu4 = 3.0 * d * d + 6.0 * d;  // each product has E[(q_d k_d)⁴] = 9
    return std::sqrt((mu4 - d * d * (n - 3.0) / (n - 1.0)) / n);
}

double variance_tolerance(std::size_t d_k, std::size_t pairs) {
    // s² is close to the mean of N values y = (q · k)², whose moments follow from
    // the cumulants of q · k (d_k, 6 d_k, 120 d_k for orders 2, 4, 6):
    //   var(y) = 2 d² + 6 d,  E[(y − d)³] = 8 d³ + 72 d² + 120 d,
    // so the skewness of s² is γ = E[(y − d)³] / var(y)^{3/2} / √N.
    const double d = double(d_k), z = 6.0;
    const double skew = (8.0 * d * d * d + 72.0 * d * d + 120.0 * d) / std::pow(2.0 * d * d + 6.0 * d, 1.5) /
                        std::sqrt(double(pairs));
    return z + skew * (z * z - 1.0) / 6.0;
}

namespace {

// q · k for `pairs` independent pairs of random vectors of width d_k.
VarianceRow measure_variance(Random& random, std::size_t d_k, std::size_t pairs) {
    const Matrix q = random.normal_matrix(pairs, d_k);  // (pairs × d_k)
    const Matrix k = random.normal_matrix(pairs, d_k);  // (pairs × d_k)
    const float scale = 1.0f / std::sqrt(float(d_k));
    std::vector<float> dots(pairs), scaled(pairs);
    for (std::size_t p = 0; p < pairs; ++p) {
        float dot = 0.0f;  // float32, as a model computes it
        for (std::size_t d = 0; d < d_k; ++d) dot += q(p, d) * k(p, d);
        dots[p] = dot;
        scaled[p] = dot * scale;
    }
    return {d_k, sample_variance(dots), sample_variance(scaled), variance_standard_error(d_k, pairs),
            variance_tolerance(d_k, pairs)};
}

double mean_jacobian_norm(const Matrix& weights) {
    double sum = 0.0;
    for (std::size_t i = 0; i < rows(weights); ++i) sum += jacobian_norm(weights, i);
    return sum / double(rows(weights));
}

}  // namespace

// scores (n × m) of queries and keys of width d_k → (n × m), every score divided by √d_k
Matrix scale_scores(const Matrix& scores, std::size_t d_k) {
    // ┌ exercise scale-scores
    return scores / std::sqrt(float(d_k));
    // └ stub: (void)d_k; return scores;
}

double jacobian_norm(const Matrix& weights, std::size_t i) {
    double sum = 0.0;
    for (std::size_t j = 0; j < cols(weights); ++j)
        for (std::size_t l = 0; l < cols(weights); ++l) {
            const double entry = (j == l ? weights(i, j) : 0.0) - double(weights(i, j)) * weights(i, l);
            sum += entry * entry;
        }
    return std::sqrt(sum);
}

ScaledAndUnscaled scaled_and_unscaled(std::uint64_t seed, std::size_t pairs, std::size_t max_d_k) {
    ScaledAndUnscaled r;
    Random random(seed);
    // pass 1: the variance of q · k for d_k = 4, 8, 16, …
    for (std::size_t d = 4; d <= max_d_k; d *= 2) r.variances.push_back(measure_variance(random, d, pairs));
    // pass 2: one sample of 6 tokens at d_k = 64, (6 × 64) · (64 × 6) → (6 × 6)
    const std::size_t n = 6, d_k = 64;
    r.Q = random.normal_matrix(n, d_k);
    r.K = random.normal_matrix(n, d_k);
    r.scores = matmul_transposed(r.Q, r.K);
    r.scaled_scores = scale_scores(r.scores, d_k);
    r.weights_unscaled = softmax_rows(r.scores);
    r.weights = softmax_rows(r.scaled_scores);
    // pass 3: the classic two-key example, d_k = 64
    r.classic_scores = {{112.0f, 96.0f}};
    r.classic_scaled = scale_scores(r.classic_scores, 64);  // / √64 = 8
    r.classic_unscaled_weights = softmax_rows(r.classic_scores);
    r.classic_weights = softmax_rows(r.classic_scaled);
    // pass 4: saturation, 256 random queries against 16 random keys at every width
    for (const VarianceRow& v : r.variances) {
        const Matrix q = random.normal_matrix(r.saturation_queries, v.d_k);  // (queries × d_k)
        const Matrix k = random.normal_matrix(r.saturation_keys, v.d_k);     // (m × d_k)
        const Matrix s = matmul_transposed(q, k);                            // (queries × m)
        const Matrix p = softmax_rows(s);
        const Matrix p_scaled = softmax_rows(scale_scores(s, v.d_k));
        r.saturation.push_back({v.d_k, mean_row_entropy(p), mean_row_entropy(p_scaled), mean_row_largest(p),
                                mean_row_largest(p_scaled), mean_jacobian_norm(p), mean_jacobian_norm(p_scaled)});
    }
    return r;
}
