// The WebAssembly build's SVD (one-sided Jacobi) against LAPACK's, which the native build uses
// (common/copy_model/score_indexer.cpp): the same singular values, and factors that rebuild B.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include <xtensor-blas/xlinalg.hpp>

#include "common/numbers/jacobi_svd.hpp"

namespace {
xt::xtensor<double, 2> random_matrix(std::size_t n, std::size_t m, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> normal;
    xt::xtensor<double, 2> B = xt::xtensor<double, 2>::from_shape({n, m});
    for (double& x : B) x = normal(rng);
    return B;
}
}  // namespace

TEST_CASE("jacobi_svd: LAPACK's singular values, and U Σ Vᵀ = B with orthonormal U and V") {
    for (const auto& [n, m] : {std::pair<std::size_t, std::size_t>{16, 16}, {7, 3}, {1, 1}, {32, 8}}) {
        const xt::xtensor<double, 2> B = random_matrix(n, m, unsigned(n * 100 + m));
        const SingularValues<double> r = jacobi_svd(B);
        const auto lapack = xt::linalg::svd(B, false, true);
        const xt::xtensor<double, 1> sigma = std::get<1>(lapack);
        for (std::size_t k = 0; k < m; ++k) CHECK(r.sigma(k) == doctest::Approx(sigma(k)).epsilon(1e-12));
        for (std::size_t k = 1; k < m; ++k) CHECK(r.sigma(k) <= r.sigma(k - 1));
        const xt::xtensor<double, 2> rebuilt = xt::linalg::dot(r.U * r.sigma, r.Vt);
        CHECK(xt::amax(xt::abs(rebuilt - B))() < 1e-12);
        CHECK(xt::amax(xt::abs(xt::linalg::dot(xt::transpose(r.U), r.U) - xt::eye<double>(m)))() < 1e-12);
        CHECK(xt::amax(xt::abs(xt::linalg::dot(r.Vt, xt::transpose(r.Vt)) - xt::eye<double>(m)))() < 1e-12);
    }
}

TEST_CASE("jacobi_svd: a rank-one matrix has one singular value, the rest 0") {
    const xt::xtensor<double, 2> B = {{1, 2, 3}, {2, 4, 6}, {3, 6, 9}};  // (1, 2, 3)ᵀ (1, 2, 3)
    const SingularValues<double> r = jacobi_svd(B);
    CHECK(r.sigma(0) == doctest::Approx(14.0).epsilon(1e-12));
    CHECK(std::abs(r.sigma(1)) < 1e-12);
    CHECK(std::abs(r.sigma(2)) < 1e-12);
}

TEST_CASE("jacobi_svd: fewer rows than columns is refused") {
    CHECK_THROWS(jacobi_svd(xt::xtensor<double, 2>::from_shape({2, 3})));
}
