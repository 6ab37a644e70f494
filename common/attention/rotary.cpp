#include "common/attention/rotary.hpp"

#include <cmath>

#include <xtensor/xview.hpp>

Matrix rotary(const Matrix& M, std::size_t offset, double base) {
    const std::size_t n = rows(M), half = cols(M) / 2;
    // pass 1: the tables cos φ and sin φ, (n × d/2), the angle in double (it reaches 10⁶ radians)
    Matrix cosines = Matrix::from_shape({n, half}), sines = Matrix::from_shape({n, half});
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t p = 0; p < half; ++p) {
            const double phi = double(offset + t) * std::pow(base, -double(2 * p) / double(cols(M)));
            cosines(t, p) = float(std::cos(phi)), sines(t, p) = float(std::sin(phi));
        }
    // pass 2: (a + ib) · e^{iφ}, the real parts in the even columns, the imaginary in the odd
    const Matrix a = xt::view(M, xt::all(), xt::range(0, 2 * half, 2));  // (n × d/2)
    const Matrix b = xt::view(M, xt::all(), xt::range(1, 2 * half, 2));  // (n × d/2)
    Matrix out = M;
    xt::view(out, xt::all(), xt::range(0, 2 * half, 2)) = a * cosines - b * sines;
    xt::view(out, xt::all(), xt::range(1, 2 * half, 2)) = a * sines + b * cosines;
    return out;
}
