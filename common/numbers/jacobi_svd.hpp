// B = U Σ Vᵀ for a small matrix B (n × m, n ≥ m), by one-sided Jacobi rotations (Hestenes):
// rotate pairs of B's columns until every two are orthogonal. Then the columns' lengths are
// the singular values Σ, the columns over their lengths are U, and the product of the
// rotations is V. In double, whatever T is; singular values falling.
//
// Where it serves: the WebAssembly build, which has no LAPACK (common/copy_model/score_indexer.cpp).
// The native build uses LAPACK's; tests/test_jacobi_svd.cpp compares the two.
#pragma once

#include <cstddef>

#include <xtensor/xtensor.hpp>

template <class T>
struct SingularValues {
    xt::xtensor<T, 2> U;       // (n × m), orthonormal columns
    xt::xtensor<T, 1> sigma;   // (m), falling, ≥ 0
    xt::xtensor<T, 2> Vt;      // (m × m), orthonormal rows
};

template <class T>
SingularValues<T> jacobi_svd(const xt::xtensor<T, 2>& B);
