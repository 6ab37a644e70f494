// Linear attention (Katharopoulos et al. 2020; attention_only_model.hpp gives its formulas):
// the features φ, Z = A V with A = φ(Q) φ(K)ᵀ normalised by rows, and its backward pass.
#include "common/token_mixers/token_mixers.hpp"

#include <cmath>
#include <memory>
#include <vector>

#include "common/numbers/fixed_order_product.hpp"

namespace token_mixers {

using namespace fixed_order;

// φ(x) = elu(x) + 1 entrywise: x + 1 for x > 0, eˣ otherwise. Its slope φ'(x) is 1 for
// x > 0 and eˣ = φ(x) otherwise.
template <class T>
void feature_rows(const Mat<T>& M, Mat<T>& F, std::size_t r0, std::size_t n) {
    const std::size_t w = cols(M);
    for (std::size_t e = r0 * w; e < (r0 + n) * w; ++e) F.flat(e) = M.flat(e) > 0 ? M.flat(e) + 1 : std::exp(M.flat(e));
}

template <class T>
Mat<T> features(const Mat<T>& M) {
    Mat<T> f = Mat<T>::from_shape(M.shape());
    feature_rows(M, f, 0, rows(M));
    return f;
}

// One head on one sequence (rows r0 … r0 + n − 1), from φ(Q) and φ(K):
// A[i, j] = φ(q_i)·φ(k_j) / Σ_{j'≤i} φ(q_i)·φ(k_j') for j ≤ i, then Z = A V.
template <class T>
void linear_attend(const Mat<T>& phi_Q, const Mat<T>& phi_K, const Mat<T>& V, Mat<T>& A, Mat<T>& Z,
                   std::size_t r0, std::size_t n) {
    const std::size_t dh = cols(phi_Q);
    T *a = A.data() + r0 * n, *z = Z.data() + r0 * dh;
    scores(phi_Q.data() + r0 * dh, phi_K.data() + r0 * dh, a, n, dh);  // s_ij = φ(q_i)·φ(k_j)
    for (std::size_t i = 0; i < n; ++i) {
        T* a_i = a + i * n;
        T sum = 0;  // every s_ij > 0: the sum is never 0
        for (std::size_t j = 0; j <= i; ++j) sum += a_i[j];
        for (std::size_t j = 0; j < n; ++j) a_i[j] = j <= i ? a_i[j] / sum : T(0);
    }
    causal_rows(a, V.data() + r0 * dh, z, n, dh);  // z_i = Σ_{j≤i} a_ij v_j
}

// The backward pass of linear_attend: dZ → dQ, dK, dV (rows r0 … r0 + n − 1).
template <class T>
void linear_attend_backward(const Mat<T>& Q, const Mat<T>& K, const Mat<T>& phi_Q, const Mat<T>& phi_K,
                            const Mat<T>& V, const Mat<T>& A, const Mat<T>& dZ, Mat<T>& dQ, Mat<T>& dK, Mat<T>& dV,
                            std::size_t r0, std::size_t n) {
    const std::size_t dh = cols(Q);
    const T *fq = phi_Q.data() + r0 * dh, *fk = phi_K.data() + r0 * dh;  // (n × d_h)
    const T* a = A.data() + r0 * n;
    const std::unique_ptr<T[]> dA = unset_numbers<T>(n * n), dS = unset_numbers<T>(n * n), dots = unset_numbers<T>(n),
                               dfq = unset_numbers<T>(n * dh), dfk = unset_numbers<T>(n * dh);
    std::vector<T> k_sum(dh, T(0));
    weighted_values_backward(V, a, dZ.data() + r0 * dh, dV.data() + r0 * dh, dA.get(), dots.get(), r0, n, dh);
    for (std::size_t i = 0; i < n; ++i) {
        T norm = 0;  // Σ_{j≤i} s_ij = φ(q_i) · Σ_{j≤i} φ(k_j)
        for (std::size_t c = 0; c < dh; ++c) norm += fq[i * dh + c] * (k_sum[c] += fk[i * dh + c]);
        for (std::size_t j = 0; j <= i; ++j) dS[i * n + j] = (dA[i * n + j] - dots[i]) / norm;
    }
    causal_rows(dS.get(), fk, dfq.get(), n, dh);  // dφ(Q) = dS φ(K)
    causal_cols(dS.get(), fq, dfk.get(), n, dh);  // dφ(K) = dSᵀ φ(Q)
    for (std::size_t i = 0; i < n; ++i)  // dq = dφ(q) ⊙ φ'(q), dk likewise
        for (std::size_t c = 0; c < dh; ++c) {
            const std::size_t e = i * dh + c;
            dQ(r0 + i, c) = dfq[e] * (Q(r0 + i, c) > 0 ? T(1) : fq[e]);
            dK(r0 + i, c) = dfk[e] * (K(r0 + i, c) > 0 ? T(1) : fk[e]);
        }
}

#define INSTANTIATE(T)                                                                                       \
    template void feature_rows(const Mat<T>&, Mat<T>&, std::size_t, std::size_t);                           \
    template Mat<T> features(const Mat<T>&);                                                                 \
    template void linear_attend(const Mat<T>&, const Mat<T>&, const Mat<T>&, Mat<T>&, Mat<T>&, std::size_t,  \
                                std::size_t);                                                                \
    template void linear_attend_backward(const Mat<T>&, const Mat<T>&, const Mat<T>&, const Mat<T>&,         \
                                         const Mat<T>&, const Mat<T>&, const Mat<T>&, Mat<T>&, Mat<T>&,      \
                                         Mat<T>&, std::size_t, std::size_t);
INSTANTIATE(float)
INSTANTIATE(double)
#undef INSTANTIATE

}  // namespace token_mixers
