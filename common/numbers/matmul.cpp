#include "common/numbers/matmul.hpp"

#include <xtensor/xmanipulation.hpp>

#include "common/numbers/fixed_order_product.hpp"
#include "common/numbers/input_error.hpp"

// The project's own products, not OpenBLAS's: each sum adds its terms in one order on every
// machine (fixed_order_product.hpp says why), so a chapter prints the same digits, to its last
// error bound, on every x86-64, in every Debian, and in the browser (WebAssembly has no BLAS).

namespace {
void require_inner(std::size_t a_cols, std::size_t b_rows, const char* what) {
    if (a_cols != b_rows)
        throw InputError(describe(what, ": inner sizes differ (", a_cols, " vs ", b_rows, ")"));
}
}  // namespace

Matrix matmul(const Matrix& a, const Matrix& b) {
    require_inner(cols(a), rows(b), "matmul a · b");
    return fixed_order::mm(a, b);
}

Matrix matmul_transposed(const Matrix& a, const Matrix& b) {
    require_inner(cols(a), cols(b), "matmul a · bᵀ");
    return fixed_order::mm_nt(a, b);
}

Matrix transposed(const Matrix& m) { return xt::transpose(m); }
