// The softmax mixer (attention_only_model.hpp gives its formulas): which keys a head reads
// (a window, sinks, the top k of an indexer) and its sink logit, causal softmax of Q Kᵀ / √d_h,
// Z = A V; then its backward pass. Also the backward pass of Z = A V, which linear attention
// shares (mixer_linear.cpp).
#include "common/token_mixers/token_mixers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <xtensor/xbuilder.hpp>

#include "common/numbers/fixed_order_product.hpp"

namespace token_mixers {

using namespace fixed_order;

namespace {

// seen[j] for the keys query i reads (j ≤ i): in the window or a sink, then, with top_k, the
// k of those the indexer ranks highest (equal scores: the lower position first); without an
// indexer, index_i is the head's own scores q_i · k_j.
template <class T>
void visible_keys(const KeyChoice<T>& choice, const T* index_i, std::size_t i, std::vector<char>& seen,
                  std::vector<std::size_t>& order) {
    order.clear();
    for (std::size_t j = 0; j <= i; ++j) {
        seen[j] = choice.window == 0 || j + choice.window > i || j < choice.sinks;
        if (seen[j]) order.push_back(j);
    }
    if (choice.top_k == 0 || order.size() <= choice.top_k) return;  // every visible key: nothing to choose
    std::partial_sort(order.begin(), order.begin() + long(choice.top_k), order.end(), [&](std::size_t a, std::size_t b) {
        return index_i[a] > index_i[b] || (index_i[a] == index_i[b] && a < b);
    });
    for (std::size_t r = choice.top_k; r < order.size(); ++r) seen[order[r]] = 0;
}

}  // namespace

// One head on one sequence (rows r0 … r0 + n − 1): causal softmax of Q Kᵀ / √d_h, then A · V.
// Raw row pointers (the matrices are row-major): the innermost loops run on every step.
// With a KeyChoice, only the keys it keeps (the others get 0), and the sink's column in the sum.
template <class T>
void attend(const Mat<T>& Q, const Mat<T>& K, const Mat<T>& V, Mat<T>& A, Mat<T>& Z, std::size_t r0, std::size_t n,
            const KeyChoice<T>& choice) {
    const std::size_t dh = cols(Q), dv = cols(V);  // dv: the values' width (MLA's q and k are wider)
    const T scale = T(1) / std::sqrt(T(dh));
    T *a = A.data() + r0 * n, *z = Z.data() + r0 * dv;
    scores(Q.data() + r0 * dh, K.data() + r0 * dh, a, n, dh);  // a_ij = q_i · k_j
    std::vector<char> seen(choice.plain() ? 0 : n);
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < n; ++i) {
        T* a_i = a + i * n;
        T largest = -std::numeric_limits<T>::infinity();
        if (choice.plain()) {
            for (std::size_t j = 0; j <= i; ++j) largest = std::max(largest, a_i[j] *= scale);
            T sum = 0;  // the exponentials first, then their sum: no running sum to save across each call
            for (std::size_t j = 0; j <= i; ++j) a_i[j] = std::exp(a_i[j] - largest);
            for (std::size_t j = 0; j <= i; ++j) sum += a_i[j];
            for (std::size_t j = 0; j < n; ++j) a_i[j] = j <= i ? a_i[j] / sum : T(0);
        } else {  // the same passes over the keys kept, and the sink's column
            // the indexer's scores, or the head's own (a_i holds q_i · k_j until it is scaled below)
            const T* index_i = choice.index_scores ? choice.index_scores->data() + (r0 + i) * n : a_i;
            visible_keys(choice, index_i, i, seen, order);
            for (std::size_t j = 0; j <= i; ++j)
                if (seen[j]) largest = std::max(largest, a_i[j] *= scale);
            const T s_h = choice.sink ? (*choice.sink)(0, 0) : T(0);
            if (choice.sink) largest = std::max(largest, s_h);
            T sum = 0;
            for (std::size_t j = 0; j <= i; ++j)
                if (seen[j]) sum += (a_i[j] = std::exp(a_i[j] - largest));
            const T e_sink = choice.sink ? std::exp(s_h - largest) : T(0);
            sum += e_sink;
            for (std::size_t j = 0; j < n; ++j) a_i[j] = j <= i && seen[j] ? a_i[j] / sum : T(0);
            if (choice.sink_share) (*choice.sink_share)(r0 + i, 0) = e_sink / sum;
        }
    }
    causal_rows(a, V.data() + r0 * dv, z, n, dv);  // z_i = Σ_{j≤i} a_ij v_j
}

// The backward pass of Z = A V for one sequence: dA = dZ Vᵀ (n × n, the entries after the
// diagonal unused), dV = Aᵀ dZ, and in `dots` rowsum(dA ⊙ A)_i = Σ_{j≤i} dA_ij a_ij, the share
// of dA that each normalisation of a row (softmax, linear) takes back.
template <class T>
void weighted_values_backward(const Mat<T>& V, const T* a, const T* dz, T* dv, T* dA, T* dots, std::size_t r0,
                              std::size_t n, std::size_t dh) {
    scores(dz, V.data() + r0 * dh, dA, n, dh);
    causal_cols(a, dz, dv, n, dh);
    for (std::size_t i = 0; i < n; ++i) {
        T dot = 0;
        for (std::size_t j = 0; j <= i; ++j) dot += dA[i * n + j] * a[i * n + j];
        dots[i] = dot;
    }
}

// The backward pass of attend: dZ → dQ, dK, dV (rows r0 … r0 + n − 1). The same with a
// KeyChoice (a key it hid has A = 0, so dS = 0); with a sink, d_sink += −a_sink,i · rowsum(dA ⊙ A)_i.
template <class T>
void attend_backward(const Mat<T>& Q, const Mat<T>& K, const Mat<T>& V, const Mat<T>& A, const Mat<T>& dZ,
                     Mat<T>& dQ, Mat<T>& dK, Mat<T>& dV, std::size_t r0, std::size_t n,
                     const Mat<T>* sink_share, T* d_sink) {
    const std::size_t dh = cols(Q), dv = cols(V);
    const T scale = T(1) / std::sqrt(T(dh));
    const T *q = Q.data() + r0 * dh, *k = K.data() + r0 * dh, *a = A.data() + r0 * n;
    // (n × n), (n × n) (dS only at j ≤ i, where the causal products read it), (n)
    const std::unique_ptr<T[]> dA = unset_numbers<T>(n * n), dS = unset_numbers<T>(n * n), dots = unset_numbers<T>(n);
    weighted_values_backward(V, a, dZ.data() + r0 * dv, dV.data() + r0 * dv, dA.get(), dots.get(), r0, n, dv);
    for (std::size_t i = 0; i < n; ++i) {
        if (d_sink) *d_sink -= (*sink_share)(r0 + i, 0) * dots[i];  // the sink's column: dA = 0 there
        for (std::size_t j = 0; j <= i; ++j) dS[i * n + j] = a[i * n + j] * (dA[i * n + j] - dots[i]) * scale;
    }
    causal_rows(dS.get(), k, dQ.data() + r0 * dh, n, dh);  // dQ = dS K
    causal_cols(dS.get(), q, dK.data() + r0 * dh, n, dh);  // dK = dSᵀ Q
}

// The indexer's scores of every sequence: row b·n + i holds q_i^I · k_j^I for j ≤ i, c = 0, 1, …
// in turn (0 after i). IQ, IK (B·n × r).
template <class T>
Mat<T> indexer_scores(const Mat<T>& IQ, const Mat<T>& IK, std::size_t B, std::size_t n) {
    Mat<T> S = xt::zeros<T>({B * n, n});
    const std::size_t r = cols(IQ);
    const T *iq = IQ.data(), *ik = IK.data();  // raw rows: nothing written below can move them
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j <= i; ++j) {
                T sum = 0;
                for (std::size_t c = 0; c < r; ++c) sum += iq[(b * n + i) * r + c] * ik[(b * n + j) * r + c];
                S(b * n + i, j) = sum;
            }
    return S;
}

#define INSTANTIATE(T)                                                                                        \
    template void attend(const Mat<T>&, const Mat<T>&, const Mat<T>&, Mat<T>&, Mat<T>&, std::size_t,          \
                         std::size_t, const KeyChoice<T>&);                                                   \
    template void weighted_values_backward(const Mat<T>&, const T*, const T*, T*, T*, T*, std::size_t,        \
                                           std::size_t, std::size_t);                                         \
    template void attend_backward(const Mat<T>&, const Mat<T>&, const Mat<T>&, const Mat<T>&, const Mat<T>&,  \
                                  Mat<T>&, Mat<T>&, Mat<T>&, std::size_t, std::size_t, const Mat<T>*, T*);    \
    template Mat<T> indexer_scores(const Mat<T>&, const Mat<T>&, std::size_t, std::size_t);
INSTANTIATE(float)
INSTANTIATE(double)
#undef INSTANTIATE

}  // namespace token_mixers
