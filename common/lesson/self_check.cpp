#include "common/lesson/self_check.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "common/display/fit_width.hpp"

void SelfChecks::print(const std::string& mark, const std::string& text) const {
    fmt::print("{}\n", wrap_to_width(mark + " " + text, line_width_, 2));
    if (listener_) listener_(mark, text);
}

bool SelfChecks::close(const std::string& claim, double max_error, double tolerance) {
    const bool holds = max_error <= tolerance;  // false for NaN
    print(holds ? "✓" : "✗", fmt::format("{} (max error {:.1e}, tolerance {:.0e})", claim, max_error, tolerance));
    (holds ? passed_ : failed_) += 1;
    return holds;
}

bool SelfChecks::that(const std::string& claim, bool holds) {
    print(holds ? "✓" : "✗", claim);
    (holds ? passed_ : failed_) += 1;
    return holds;
}

void SelfChecks::skip(const std::string& claim, const std::string& why) {
    ++skipped_;
    print("·", fmt::format("{}: not checked ({})", claim, why));
}

double max_abs_difference(const Matrix& a, const Matrix& b) {
    const double infinity = std::numeric_limits<double>::infinity();
    if (a.shape() != b.shape()) return infinity;
    double worst = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double d = std::fabs(static_cast<double>(a.flat(i)) - static_cast<double>(b.flat(i)));
        if (std::isnan(d)) return infinity;
        worst = std::max(worst, d);
    }
    return worst;
}

double worst_row_sum_error(const Matrix& weights) {
    double worst = 0.0;
    for (std::size_t i = 0; i < rows(weights); ++i) {
        double sum = 0.0;
        for (std::size_t j = 0; j < cols(weights); ++j) sum += static_cast<double>(weights(i, j));
        const double error = std::fabs(sum - 1.0);
        if (std::isnan(error)) return std::numeric_limits<double>::infinity();  // the worst of all
        worst = std::max(worst, error);
    }
    return worst;
}

double row_sum_tolerance(std::size_t terms) {
    return std::max(1e-6, static_cast<double>(terms) * static_cast<double>(FLT_EPSILON));
}

double scaled_tolerance(double tolerance, const Matrix& reference) {
    double largest = 1.0;
    for (const float v : reference)
        if (std::isfinite(v)) largest = std::max(largest, std::fabs(static_cast<double>(v)));
    return tolerance * largest;
}
