#include "common/math/matmul.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xmanipulation.hpp>

#include "common/math/input_error.hpp"

namespace {
void require_inner(std::size_t a_cols, std::size_t b_rows, const char* what) {
    if (a_cols != b_rows)
        throw InputError(describe(what, ": inner sizes differ (", a_cols, " vs ", b_rows, ")"));
}
}  // namespace

Matrix matmul(const Matrix& a, const Matrix& b) {
    require_inner(cols(a), rows(b), "matmul a · b");
    return xt::linalg::dot(a, b);
}

Matrix matmul_transposed(const Matrix& a, const Matrix& b) {
    require_inner(cols(a), cols(b), "matmul a · bᵀ");
    return xt::linalg::dot(a, xt::transpose(b));
}

Matrix transposed(const Matrix& m) { return xt::transpose(m); }
