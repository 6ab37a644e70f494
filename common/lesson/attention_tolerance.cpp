#include "common/lesson/attention_tolerance.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

AttentionTolerance attention_tolerance(const Matrix& Q, const Matrix& K, const Matrix& V) {
    const std::size_t d_k = cols(Q), m = rows(K);
    double terms = 0.0;  // max_ij Σ_d |q_id| |k_jd|
    for (std::size_t i = 0; i < rows(Q); ++i)
        for (std::size_t j = 0; j < m; ++j) {
            double sum = 0.0;
            for (std::size_t d = 0; d < d_k; ++d) sum += std::abs(double(Q(i, d))) * std::abs(double(K(j, d)));
            terms = std::max(terms, sum);
        }
    const double score_error = double(d_k + 1) * FLT_EPSILON * terms / std::sqrt(double(std::max<std::size_t>(d_k, 1)));
    const double sums = double(m) * FLT_EPSILON;
    double largest_value = 1.0;
    for (const float v : V) largest_value = std::max(largest_value, std::abs(double(v)));
    return {1e-5 + score_error + sums, (1e-5 + 2.0 * score_error + sums) * largest_value};
}
