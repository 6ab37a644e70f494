#include "common/attention/positional_encoding.hpp"

#include <cmath>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xoperation.hpp>

double pe_frequency(std::size_t i, std::size_t d_model) {
    return 1.0 / std::pow(10000.0, static_cast<double>(2 * i) / static_cast<double>(d_model));
}

Matrix sinusoidal_encoding(std::size_t n, std::size_t d_model) {
    // The whole table at once (chapter 09 writes it entry by entry, as two loops): the
    // positions down a column times each column's speed ω_(c/2) along a row, then the sine
    // in the even columns and the cosine in the odd ones. In double, stored as float.
    xt::xtensor<double, 2> positions = xt::zeros<double>({n, std::size_t{1}});           // (n × 1)
    xt::xtensor<double, 2> speeds = xt::zeros<double>({std::size_t{1}, d_model});        // (1 × d_model)
    xt::xtensor<bool, 2> sine = xt::zeros<bool>({std::size_t{1}, d_model});              // (1 × d_model)
    for (std::size_t pos = 0; pos < n; ++pos) positions(pos, 0) = static_cast<double>(pos);
    for (std::size_t c = 0; c < d_model; ++c) speeds(0, c) = pe_frequency(c / 2, d_model), sine(0, c) = c % 2 == 0;
    const xt::xtensor<double, 2> angles = positions * speeds;  // (n × d_model), broadcast
    return xt::cast<float>(xt::where(sine, xt::sin(angles), xt::cos(angles)));
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
