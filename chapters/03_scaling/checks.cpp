#include "chapters/03_scaling/checks.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/attention/softmax.hpp"
#include "common/display/print.hpp"
#include "common/reference/attention_by_loops.hpp"

namespace {

// Errors in standard errors (of var(q·k) = d_k, and of the scaled variance = 1, whose
// standard error is d_k times smaller), against each d_k's own tolerance: the row that
// comes closest to its tolerance is the one reported.
void check_variances(SelfChecks& check, const std::vector<VarianceRow>& variances) {
    std::size_t worst = 0, worst_scaled = 0;
    auto error = [](const VarianceRow& v) { return std::abs(v.variance - double(v.d_k)) / v.standard_error; };
    auto error_scaled = [](const VarianceRow& v) {
        return std::abs(v.scaled_variance - 1.0) / (v.standard_error / double(v.d_k));
    };
    for (std::size_t k = 0; k < variances.size(); ++k) {
        const VarianceRow& v = variances[k];
        if (error(v) / v.tolerance > error(variances[worst]) / variances[worst].tolerance) worst = k;
        if (error_scaled(v) / v.tolerance > error_scaled(variances[worst_scaled]) / variances[worst_scaled].tolerance)
            worst_scaled = k;
    }
    check.close(fmt::format("var(q·k) = d_k for d_k = 4 … {}, in standard errors", variances.back().d_k),
                error(variances[worst]), variances[worst].tolerance);
    check.close("var(q·k / √d_k) = 1 for every d_k, in standard errors", error_scaled(variances[worst_scaled]),
                variances[worst_scaled].tolerance);
}

// ‖J‖ by finite differences of softmax_rows, for the first row of the sample: the
// largest difference from the formula diag(p) − p pᵀ.
double jacobian_error(const ScaledAndUnscaled& r) {
    const float h = 1e-2f;
    const std::size_t n = rows(r.scores);
    double worst = 0.0;
    for (std::size_t l = 0; l < n; ++l) {
        Matrix up = r.scaled_scores, down = r.scaled_scores;  // (n × n)
        up(0, l) += h;
        down(0, l) -= h;
        const Matrix p_up = softmax_rows(up), p_down = softmax_rows(down);
        for (std::size_t j = 0; j < n; ++j) {
            const double numeric = (double(p_up(0, j)) - p_down(0, j)) / (2.0 * h);
            const double formula = (j == l ? r.weights(0, j) : 0.0) - double(r.weights(0, j)) * r.weights(0, l);
            worst = std::max(worst, std::abs(numeric - formula));
        }
    }
    return worst;
}

}  // namespace

void check_scaling(SelfChecks& check, const ScaledAndUnscaled& r) {
    check_variances(check, r.variances);
    check.close("112 and 96 over √64 give weights 0.88 and 0.12 (2 decimals)",
                std::max(std::abs(r.classic_weights(0, 0) - 0.88), std::abs(r.classic_weights(0, 1) - 0.12)), 0.005);
    check.close("unscaled they give 1.000 and 0.000 (to 3 decimals)",
                std::max(std::abs(r.classic_unscaled_weights(0, 0) - 1.0), double(r.classic_unscaled_weights(0, 1))),
                0.0005);
    // The reference scales by 1/√d_k itself, from Q and K (no matmul, no softmax_rows);
    // its values are not needed here, so K stands in for V.
    check.close("weights = softmax(q · k / √d_k), looped in double",
                max_abs_difference(attention_by_loops(r.Q, r.K, r.K).weights, r.weights), 1e-5);
    check.close("rows of the sample weights sum to 1",
                std::max(worst_row_sum_error(r.weights), worst_row_sum_error(r.weights_unscaled)), 1e-6);
    check.close("diag(p) − p pᵀ matches finite differences of softmax_rows", jacobian_error(r), 1e-3);
    const auto [lowest, highest] = std::minmax_element(r.saturation.begin(), r.saturation.end(),
                                                       [](const SaturationRow& a, const SaturationRow& b) {
                                                           return a.entropy_scaled < b.entropy_scaled;
                                                       });
    check.that(fmt::format("scaled, the mean entropy stays within 15% for every d_k ({} to {})",
                           format_number(float(lowest->entropy_scaled), 3),
                           format_number(float(highest->entropy_scaled), 3)),
               highest->entropy_scaled <= 1.15 * lowest->entropy_scaled);
    const SaturationRow &first = r.saturation.front(), &last = r.saturation.back();
    if (last.d_k >= 64)  // at small d_k the difference is within the noise
        check.that(fmt::format("unscaled, the largest weight grows ({} at d_k = 4, {} at d_k = {}) and ‖J‖ shrinks",
                               format_number(float(first.largest), 3), format_number(float(last.largest), 3),
                               last.d_k),
                   last.largest > first.largest && last.jacobian < first.jacobian);
}
