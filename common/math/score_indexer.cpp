#include "common/math/score_indexer.hpp"

#include <cmath>
#include <tuple>

#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xview.hpp>

#include "common/math/input_error.hpp"

template <class T>
Mat<T> key_projection(const AttentionOnlyModel<T>& m, std::size_t k) {
    if (m.variant.latent > 0) return xt::linalg::dot(m.W_DKV[k / m.heads], m.W_UK[k]);  // (d × d_c)(d_c × d_h)
    return m.W_K[kv_index(m, k)];
}

template <class T>
void set_indexer_from_heads(AttentionOnlyModel<T>& m, std::size_t r) {
    const std::size_t d = cols(m.E);
    if (r == 0 || r > d) throw InputError(describe("an indexer of width ", r, " (it must be in [1, ", d, "])"));
    m.W_IQ.clear(), m.W_IK.clear();
    for (std::size_t k = 0; k < m.W_Q.size(); ++k) {
        // 1. B = W_Q W_Kᵀ (d × d): the head's score of x_i for x_j is x_i B x_jᵀ
        const Mat<T> B = xt::linalg::dot(m.W_Q[k], xt::transpose(key_projection(m, k)));
        // 2. B = U Σ Vᵀ, singular values falling
        const auto usv = xt::linalg::svd(B, false, true);
        const Mat<T> U = std::get<0>(usv), Vt = std::get<2>(usv);
        const xt::xtensor<T, 1> sigma = std::get<1>(usv);
        // 3. W_IQ = U_r Σ_r^{1/2}, W_IK = V_r Σ_r^{1/2} (d × r)
        Mat<T> IQ = Mat<T>::from_shape({d, r}), IK = IQ;
        for (std::size_t c = 0; c < r; ++c) {
            const T root = std::sqrt(sigma(c));
            for (std::size_t i = 0; i < d; ++i) IQ(i, c) = U(i, c) * root, IK(i, c) = Vt(c, i) * root;
        }
        m.W_IQ.push_back(IQ), m.W_IK.push_back(IK);
    }
}

template Mat<float> key_projection(const AttentionOnlyModel<float>&, std::size_t);
template Mat<double> key_projection(const AttentionOnlyModel<double>&, std::size_t);
template void set_indexer_from_heads(AttentionOnlyModel<float>&, std::size_t);
template void set_indexer_from_heads(AttentionOnlyModel<double>&, std::size_t);
