#include "common/math/positional_encoding.hpp"

#include <cmath>

double pe_frequency(std::size_t i, std::size_t d_model) {
    return 1.0 / std::pow(10000.0, static_cast<double>(2 * i) / static_cast<double>(d_model));
}

Matrix sinusoidal_encoding(std::size_t n, std::size_t d_model) {
    Matrix PE = Matrix::from_shape({n, d_model});  // (n × d_model)
    for (std::size_t pos = 0; pos < n; ++pos)
        for (std::size_t c = 0; c < d_model; ++c) {
            const double angle = static_cast<double>(pos) * pe_frequency(c / 2, d_model);
            PE(pos, c) = static_cast<float>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    return PE;
}

Matrix pe_shift_matrix(std::size_t k, std::size_t d_model) {
    Matrix M = Matrix::from_shape({d_model, d_model});  // (d_model × d_model)
    M.fill(0.0f);
    for (std::size_t i = 0; 2 * i + 1 < d_model; ++i) {
        const double angle = static_cast<double>(k) * pe_frequency(i, d_model);
        const auto c = static_cast<float>(std::cos(angle)), s = static_cast<float>(std::sin(angle));
        const std::size_t a = 2 * i, b = 2 * i + 1;  // the sine and cosine columns of pair i
        M(a, a) = c, M(a, b) = -s;                   // sin(x + y) = sin x cos y + cos x sin y
        M(b, a) = s, M(b, b) = c;                    // cos(x + y) = cos x cos y − sin x sin y
    }
    return M;
}
