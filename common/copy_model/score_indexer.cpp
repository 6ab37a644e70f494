#include "common/copy_model/score_indexer.hpp"

#include <cmath>
#include <tuple>

#include <xtensor/xview.hpp>

#include "common/numbers/fixed_order_product.hpp"  // the products: the same digits on every machine
#include "common/numbers/input_error.hpp"
#if defined(__EMSCRIPTEN__)
#include "common/numbers/jacobi_svd.hpp"  // WebAssembly has no LAPACK
#else
#include <xtensor-blas/xlinalg.hpp>
#endif

namespace {
template <class T>
Mat<T> product(const Mat<T>& a, const Mat<T>& b) {  // a · b, each sum in a fixed order
    return fixed_order::mm(a, b);
}

template <class T>
Mat<T> product_transposed(const Mat<T>& a, const Mat<T>& b) {  // a · bᵀ
    return fixed_order::mm_nt(a, b);
}

// B = U Σ Vᵀ: (U, σ, Vᵀ), singular values falling
template <class T>
std::tuple<Mat<T>, xt::xtensor<T, 1>, Mat<T>> singular_values(const Mat<T>& B) {
#if defined(__EMSCRIPTEN__)
    SingularValues<T> r = jacobi_svd(B);
    return {r.U, r.sigma, r.Vt};
#else
    const auto usv = xt::linalg::svd(B, false, true);
    return {std::get<0>(usv), std::get<1>(usv), std::get<2>(usv)};
#endif
}
}  // namespace

template <class T>
Mat<T> key_projection(const AttentionOnlyModel<T>& m, std::size_t k) {
    if (m.variant.latent > 0) return product(m.W_DKV[k / m.heads], m.W_UK[k]);  // (d × d_c)(d_c × d_h)
    return m.W_K[kv_index(m, k)];
}

template <class T>
void set_indexer_from_heads(AttentionOnlyModel<T>& m, std::size_t r) {
    const std::size_t d = cols(m.E);
    if (r == 0 || r > d) throw InputError(describe("an indexer of width ", r, " (it must be in [1, ", d, "])"));
    m.W_IQ.clear(), m.W_IK.clear();
    for (std::size_t k = 0; k < m.W_Q.size(); ++k) {
        // 1. B = W_Q W_Kᵀ (d × d): the head's score of x_i for x_j is x_i B x_jᵀ
        const Mat<T> B = product_transposed(m.W_Q[k], key_projection(m, k));
        // 2. B = U Σ Vᵀ, singular values falling
        const auto [U, sigma, Vt] = singular_values(B);
        // 3. W_IQ = U_r Σ_r^{1/2}, W_IK = V_r Σ_r^{1/2} (d × r); u_c and v_c may both change sign
        //    (B stays the same): each pair is turned so that the largest entry of u_c is positive,
        //    whichever SVD found it (LAPACK's natively, jacobi_svd in WebAssembly)
        Mat<T> IQ = Mat<T>::from_shape({d, r}), IK = IQ;
        for (std::size_t c = 0; c < r; ++c) {
            std::size_t largest = 0;
            for (std::size_t i = 1; i < d; ++i)
                if (std::abs(U(i, c)) > std::abs(U(largest, c))) largest = i;
            const T root = std::sqrt(sigma(c)) * (U(largest, c) < 0 ? T(-1) : T(1));
            for (std::size_t i = 0; i < d; ++i) IQ(i, c) = U(i, c) * root, IK(i, c) = Vt(c, i) * root;
        }
        m.W_IQ.push_back(IQ), m.W_IK.push_back(IK);
    }
}

template Mat<float> key_projection(const AttentionOnlyModel<float>&, std::size_t);
template Mat<double> key_projection(const AttentionOnlyModel<double>&, std::size_t);
template void set_indexer_from_heads(AttentionOnlyModel<float>&, std::size_t);
template void set_indexer_from_heads(AttentionOnlyModel<double>&, std::size_t);
