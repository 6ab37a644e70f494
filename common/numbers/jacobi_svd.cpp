#include "common/numbers/jacobi_svd.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "common/numbers/input_error.hpp"

template <class T>
SingularValues<T> jacobi_svd(const xt::xtensor<T, 2>& B) {
    const std::size_t n = B.shape(0), m = B.shape(1);
    if (n < m) throw InputError(describe("jacobi_svd of a (", n, " × ", m, ") matrix: it needs rows ≥ columns"));
    xt::xtensor<double, 2> A = xt::cast<double>(B), V = xt::eye<double>(m);
    // 1. sweeps over every pair of columns (p, q), until none is far from orthogonal
    for (int sweep = 0; sweep < 100; ++sweep) {
        bool rotated = false;
        for (std::size_t p = 0; p + 1 < m; ++p)
            for (std::size_t q = p + 1; q < m; ++q) {
                double alpha = 0, beta = 0, gamma = 0;  // |a_p|², |a_q|², a_p · a_q
                for (std::size_t i = 0; i < n; ++i)
                    alpha += A(i, p) * A(i, p), beta += A(i, q) * A(i, q), gamma += A(i, p) * A(i, q);
                if (std::abs(gamma) <= 1e-15 * std::sqrt(alpha * beta)) continue;
                // the rotation by θ that makes a_p and a_q orthogonal: t = tan θ
                const double zeta = (beta - alpha) / (2 * gamma);
                const double t = (zeta >= 0 ? 1.0 : -1.0) / (std::abs(zeta) + std::sqrt(1 + zeta * zeta));
                const double c = 1 / std::sqrt(1 + t * t), s = c * t;
                for (std::size_t i = 0; i < n; ++i) {
                    const double ap = A(i, p), aq = A(i, q);
                    A(i, p) = c * ap - s * aq, A(i, q) = s * ap + c * aq;
                }
                for (std::size_t i = 0; i < m; ++i) {
                    const double vp = V(i, p), vq = V(i, q);
                    V(i, p) = c * vp - s * vq, V(i, q) = s * vp + c * vq;
                }
                rotated = true;
            }
        if (!rotated) break;
    }
    // 2. σ_j = |a_j|, u_j = a_j / σ_j, in order of falling σ
    std::vector<double> length(m, 0.0);
    for (std::size_t j = 0; j < m; ++j) {
        for (std::size_t i = 0; i < n; ++i) length[j] += A(i, j) * A(i, j);
        length[j] = std::sqrt(length[j]);
    }
    std::vector<std::size_t> order(m);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return length[a] > length[b]; });
    SingularValues<T> r{xt::xtensor<T, 2>::from_shape({n, m}), xt::xtensor<T, 1>::from_shape({m}),
                        xt::xtensor<T, 2>::from_shape({m, m})};
    for (std::size_t k = 0; k < m; ++k) {
        const std::size_t j = order[k];
        r.sigma(k) = static_cast<T>(length[j]);
        for (std::size_t i = 0; i < n; ++i) r.U(i, k) = static_cast<T>(length[j] > 0 ? A(i, j) / length[j] : 0.0);
        for (std::size_t i = 0; i < m; ++i) r.Vt(k, i) = static_cast<T>(V(i, j));
    }
    return r;
}

template SingularValues<float> jacobi_svd(const xt::xtensor<float, 2>&);
template SingularValues<double> jacobi_svd(const xt::xtensor<double, 2>&);
