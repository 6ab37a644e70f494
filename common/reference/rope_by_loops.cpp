#include "common/reference/rope_by_loops.hpp"

#include <cmath>

namespace {

// θ_p = base^(−2p/d) for the pair p, by exp and log.
double theta(std::size_t pair, std::size_t d, double base) {
    return std::exp(-double(2 * pair) / double(d) * std::log(base));
}

}  // namespace

Matrix rope_by_loops(const Matrix& M, std::size_t offset, double base) {
    const std::size_t d = cols(M);
    Matrix out = Matrix::from_shape(M.shape());
    for (std::size_t t = 0; t < rows(M); ++t)
        for (std::size_t p = 0; 2 * p + 1 < d; ++p) {
            // the pair times its rotation matrix, in double
            const double angle = double(offset + t) * theta(p, d, base);
            const double R[2][2] = {{std::cos(angle), -std::sin(angle)}, {std::sin(angle), std::cos(angle)}};
            const double a = M(t, 2 * p), b = M(t, 2 * p + 1);
            out(t, 2 * p) = float(R[0][0] * a + R[0][1] * b);
            out(t, 2 * p + 1) = float(R[1][0] * a + R[1][1] * b);
        }
    return out;
}

Matrix rope_scores_by_distance(const Matrix& Q, const Matrix& K, double base) {
    const std::size_t d = cols(Q);
    Matrix scores = Matrix::from_shape({rows(Q), rows(K)});
    for (std::size_t i = 0; i < rows(Q); ++i)
        for (std::size_t j = 0; j < rows(K); ++j) {
            double s = 0.0;
            for (std::size_t p = 0; 2 * p + 1 < d; ++p) {
                const double phi = (double(j) - double(i)) * theta(p, d, base);  // no position, only j − i
                const double qa = Q(i, 2 * p), qb = Q(i, 2 * p + 1), ka = K(j, 2 * p), kb = K(j, 2 * p + 1);
                s += (qa * ka + qb * kb) * std::cos(phi) + (qb * ka - qa * kb) * std::sin(phi);
            }
            scores(i, j) = float(s);
        }
    return scores;
}
