#include "common/self_check.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

bool SelfChecks::close(const std::string& claim, double max_error, double tolerance) {
    const bool holds = max_error <= tolerance;  // false for NaN
    fmt::print("{} {} (max error {:.1e}, tolerance {:.0e})\n", holds ? "✓" : "✗", claim, max_error, tolerance);
    (holds ? passed_ : failed_) += 1;
    return holds;
}

bool SelfChecks::that(const std::string& claim, bool holds) {
    fmt::print("{} {}\n", holds ? "✓" : "✗", claim);
    (holds ? passed_ : failed_) += 1;
    return holds;
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
