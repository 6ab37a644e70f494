#include "common/reference/positional_encoding_by_formula.hpp"

#include <cmath>
#include <limits>

double pe_by_formula(std::size_t pos, std::size_t c, std::size_t d_model) {
    const double exponent = double(2 * (c / 2)) / double(d_model);              // 2i / d_model, i = c / 2
    const double angle = double(pos) * std::exp(-exponent * std::log(10000.0));  // pos / 10000^exponent
    return c % 2 == 0 ? std::sin(angle) : std::cos(angle);
}

double pe_formula_error(const Matrix& PE) {
    double worst = 0.0;
    for (std::size_t pos = 0; pos < rows(PE); ++pos)
        for (std::size_t c = 0; c < cols(PE); ++c) {
            const double error = std::abs(double(PE(pos, c)) - pe_by_formula(pos, c, cols(PE)));
            if (std::isnan(error)) return std::numeric_limits<double>::infinity();
            worst = std::max(worst, error);
        }
    return worst;
}
