#include "common/matmul.hpp"

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xmanipulation.hpp>

#include "common/input_error.hpp"

#include <fmt/format.h>

namespace {
void require_inner(std::size_t a_cols, std::size_t b_rows, const char* what) {
    if (a_cols != b_rows)
        throw InputError(fmt::format("{}: inner sizes differ ({} vs {})", what, a_cols, b_rows));
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
