#include "common/math/matmul.hpp"

#include <xtensor/xmanipulation.hpp>

#include "common/math/input_error.hpp"
#if defined(__EMSCRIPTEN__)
#include "common/math/fixed_order_product.hpp"  // WebAssembly has no BLAS: the project's own loops
#else
#include <xtensor-blas/xlinalg.hpp>
#endif

namespace {
void require_inner(std::size_t a_cols, std::size_t b_rows, const char* what) {
    if (a_cols != b_rows)
        throw InputError(describe(what, ": inner sizes differ (", a_cols, " vs ", b_rows, ")"));
}
}  // namespace

Matrix matmul(const Matrix& a, const Matrix& b) {
    require_inner(cols(a), rows(b), "matmul a · b");
#if defined(__EMSCRIPTEN__)
    return fixed_order::mm(a, b);
#else
    return xt::linalg::dot(a, b);
#endif
}

Matrix matmul_transposed(const Matrix& a, const Matrix& b) {
    require_inner(cols(a), cols(b), "matmul a · bᵀ");
#if defined(__EMSCRIPTEN__)
    return fixed_order::mm_nt(a, b);
#else
    return xt::linalg::dot(a, xt::transpose(b));
#endif
}

Matrix transposed(const Matrix& m) { return xt::transpose(m); }
