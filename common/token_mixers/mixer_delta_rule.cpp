// The delta rule (Schlag et al. 2021; Yang et al. 2024) and its gated form (Yang et al. 2025),
// as attention_only_model.hpp writes them: the gates, a state updated token by token, and the
// backward pass back through time.
#include "common/token_mixers/token_mixers.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "common/numbers/fixed_order_product.hpp"

namespace token_mixers {

using namespace fixed_order;

namespace {

constexpr double unit_epsilon = 1e-6;  // q̂ = q / max(‖q‖, ε)

// a · b over n entries in a fixed order: four running sums (entries c ≡ 0, 1, 2, 3 mod 4, each
// adding c in turn), then (s₀ + s₁) + (s₂ + s₃). Four independent sums run side by side (one
// vector of four floats); one running sum would wait for every addition before the next.
template <class T>
__attribute__((always_inline)) inline T dot(const T* a, const T* b, std::size_t n) {
    T s[4] = {0, 0, 0, 0};
    std::size_t c = 0;
    for (; c + 4 <= n; c += 4)
        for (std::size_t i = 0; i < 4; ++i) s[i] += a[c + i] * b[c + i];
    for (; c < n; ++c) s[c % 4] += a[c] * b[c];
    return (s[0] + s[1]) + (s[2] + s[3]);
}

// Rows [r0, r0 + n) of M (n × d_h), each divided by max(‖row‖, ε) (its length in `lengths`).
template <class T>
std::vector<T> unit_rows(const Mat<T>& M, std::size_t r0, std::size_t n, std::vector<T>& lengths) {
    const std::size_t dh = cols(M);
    std::vector<T> u(n * dh);
    lengths.assign(n, T(0));
    for (std::size_t t = 0; t < n; ++t) {
        const T* m = M.data() + (r0 + t) * dh;
        T squares = 0;
        for (std::size_t c = 0; c < dh; ++c) squares += m[c] * m[c];
        lengths[t] = std::max(std::sqrt(squares), T(unit_epsilon));
        for (std::size_t c = 0; c < dh; ++c) u[t * dh + c] = m[c] / lengths[t];
    }
    return u;
}

// dM rows [r0, r0 + n) from d(unit rows): (du − û (û · du)) / ‖m‖, or du / ε where the length was ε.
template <class T>
void unit_rows_backward(const std::vector<T>& u, const std::vector<T>& lengths, const std::vector<T>& du,
                        Mat<T>& dM, std::size_t r0, std::size_t n) {
    const std::size_t dh = cols(dM);
    for (std::size_t t = 0; t < n; ++t) {
        const T *u_t = u.data() + t * dh, *du_t = du.data() + t * dh;
        T dot = 0;
        if (lengths[t] > T(unit_epsilon))
            for (std::size_t c = 0; c < dh; ++c) dot += u_t[c] * du_t[c];
        for (std::size_t c = 0; c < dh; ++c) dM(r0 + t, c) = (du_t[c] - u_t[c] * dot) / lengths[t];
    }
}

// The delta rule's state unrolled (rows r0 … r0 + n − 1 of A, from the unit rows q̂, k̂ of the
// sequence): z_t = Σ_{j≤t} M[t, j] v_j. Column j of C (d_h × n) holds
// α_t(I − β_t k̂_t k̂_tᵀ) ⋯ α_{j+1}(I − β_{j+1} k̂_{j+1} k̂_{j+1}ᵀ) β_j k̂_j after token t, and
// M[t, j] = q̂_t · C[:, j]. It shows what a head reads; the loss and its gradient never need it.
template <class T>
void unrolled_weights(const std::vector<T>& q, const std::vector<T>& k, const Mat<T>& beta, const Mat<T>* alpha,
                      Mat<T>& A, std::size_t r0, std::size_t n, std::size_t dh) {
    T* a = A.data() + r0 * n;
    std::vector<T> C(dh * n, T(0)), kc(n);
    for (std::size_t t = 0; t < n; ++t) {
        const T b_t = beta(r0 + t, 0), g_t = alpha ? (*alpha)(r0 + t, 0) : T(1);
        const T *q_t = q.data() + t * dh, *k_t = k.data() + t * dh;
        for (std::size_t j = 0; j < t; ++j) kc[j] = 0;
        for (std::size_t r = 0; r < dh; ++r)
            for (std::size_t j = 0; j < t; ++j) kc[j] += k_t[r] * C[r * n + j];
        T* a_t = a + t * n;
        for (std::size_t j = 0; j < n; ++j) a_t[j] = 0;
        for (std::size_t r = 0; r < dh; ++r) {
            T* C_r = C.data() + r * n;
            C_r[t] = b_t * k_t[r];
            for (std::size_t j = 0; j < t; ++j) C_r[j] = g_t * (C_r[j] - b_t * k_t[r] * kc[j]);
            for (std::size_t j = 0; j <= t; ++j) a_t[j] += q_t[r] * C_r[j];
        }
    }
}
// One token of delta_rule, S_{t−1} → S_t and z_t. The pointers never overlap (__restrict): the
// compiler may keep e and z_t in registers and run the loops over c as vectors.
template <std::size_t DH, class T>
__attribute__((always_inline)) inline void delta_step(const T* __restrict S_prev, T* __restrict S,
                                                      const T* __restrict q_t, const T* __restrict k_t,
                                                      const T* __restrict v_t, T b_t, T g_t, T* __restrict e,
                                                      T* __restrict z_t, std::size_t dh_at_run_time) {
    const std::size_t dh = DH > 0 ? DH : dh_at_run_time;
    // 1. e = β_t (v_t − α_t S_{t−1}ᵀ k̂_t): what the state returns for the key, corrected towards v_t
    for (std::size_t c = 0; c < dh; ++c) e[c] = 0;
    for (std::size_t r = 0; r < dh; ++r)
        for (std::size_t c = 0; c < dh; ++c) e[c] += k_t[r] * S_prev[r * dh + c];
    for (std::size_t c = 0; c < dh; ++c) e[c] = b_t * (v_t[c] - g_t * e[c]);
    // 2. S_t = α_t S_{t−1} + k̂_t eᵀ (d_h × d_h), and z_t = S_tᵀ q̂_t (d_h) row by row of S_t
    for (std::size_t c = 0; c < dh; ++c) z_t[c] = 0;
    for (std::size_t r = 0; r < dh; ++r)
        for (std::size_t c = 0; c < dh; ++c) z_t[c] += q_t[r] * (S[r * dh + c] = g_t * S_prev[r * dh + c] + k_t[r] * e[c]);
}

// delta_step above and delta_step_backward below, for float at d_h = 4·W, written with vectors of
// four floats (a row of the state is W of them, each one SSE register, which every x86-64 has):
// every entry adds the same terms in the same order, but the vectors run along a row, where the
// compiler, left alone, vectorised across rows and paid for it in shuffles and stores through
// the stack (chapter 19's delta rule trained 20 % faster for it).
typedef float four_floats __attribute__((vector_size(16)));
typedef float four_floats_anywhere __attribute__((vector_size(16), aligned(4), may_alias));
inline const four_floats_anywhere* fours(const float* x) { return reinterpret_cast<const four_floats_anywhere*>(x); }
inline four_floats_anywhere* fours(float* x) { return reinterpret_cast<four_floats_anywhere*>(x); }
// dot(a, b, 4·W) of above: its four running sums as one vector
template <std::size_t W>
__attribute__((always_inline)) inline float dot_in_vectors(const float* a, const float* b) {
    four_floats s = {0, 0, 0, 0};
    for (std::size_t j = 0; j < W; ++j) s += fours(a)[j] * fours(b)[j];
    return (s[0] + s[1]) + (s[2] + s[3]);
}
template <std::size_t W>
__attribute__((always_inline)) inline void delta_step_in_vectors(const float* __restrict S_prev, float* __restrict S,
                                                                 const float* __restrict q_t,
                                                                 const float* __restrict k_t,
                                                                 const float* __restrict v_t, float b_t, float g_t,
                                                                 float* __restrict z_t) {
    constexpr std::size_t dh = 4 * W;
    four_floats e[W], z[W];
    for (std::size_t i = 0; i < W; ++i) e[i] = z[i] = four_floats{};
    for (std::size_t r = 0; r < dh; ++r)
        for (std::size_t i = 0; i < W; ++i) e[i] += k_t[r] * fours(S_prev + r * dh)[i];
    for (std::size_t i = 0; i < W; ++i) e[i] = b_t * (fours(v_t)[i] - g_t * e[i]);
    for (std::size_t r = 0; r < dh; ++r)
        for (std::size_t i = 0; i < W; ++i) {
            const four_floats s = g_t * fours(S_prev + r * dh)[i] + k_t[r] * e[i];
            fours(S + r * dh)[i] = s;
            z[i] += q_t[r] * s;
        }
    for (std::size_t i = 0; i < W; ++i) fours(z_t)[i] = z[i];
}
template <std::size_t W>
__attribute__((always_inline)) inline float delta_step_backward_in_vectors(
    const float* __restrict S_t, const float* __restrict S_prev, const float* __restrict q_t,
    const float* __restrict k_t, const float* __restrict v_t, const float* __restrict dz_t, float b_t, float g_t,
    float* __restrict D, float* __restrict dq_t, float* __restrict dk_t, float* __restrict dv_t,
    float* __restrict d_alpha_t) {
    constexpr std::size_t dh = 4 * W;
    four_floats w[W], e[W], da[W];
    for (std::size_t i = 0; i < W; ++i) w[i] = e[i] = da[i] = four_floats{};
    for (std::size_t r = 0; r < dh; ++r) {
        four_floats_anywhere* D_r = fours(D + r * dh);
        dq_t[r] = dot_in_vectors<W>(S_t + r * dh, dz_t);
        for (std::size_t i = 0; i < W; ++i) {
            const four_floats d = D_r[i] += q_t[r] * fours(dz_t)[i];
            w[i] += k_t[r] * d;
            e[i] += k_t[r] * fours(S_prev + r * dh)[i];
        }
    }
    float db = 0;
    alignas(16) float e_row[dh], w_row[dh];
    for (std::size_t i = 0; i < W; ++i) {
        e[i] = fours(v_t)[i] - g_t * e[i];
        fours(dv_t)[i] = b_t * w[i];
        fours(e_row)[i] = e[i], fours(w_row)[i] = w[i];
    }
    for (std::size_t c = 0; c < dh; ++c) db += w_row[c] * e_row[c];
    for (std::size_t r = 0; r < dh; ++r) {
        four_floats_anywhere* D_r = fours(D + r * dh);
        const float* S_prev_r = S_prev + r * dh;
        dk_t[r] = b_t * (dot_in_vectors<W>(D + r * dh, e_row) - g_t * dot_in_vectors<W>(S_prev_r, w_row));
        for (std::size_t i = 0; i < W; ++i) {
            const four_floats d_before = D_r[i] - b_t * k_t[r] * w[i];
            if (d_alpha_t) da[i] += d_before * fours(S_prev_r)[i];
            D_r[i] = g_t * d_before;
        }
    }
    if (d_alpha_t) {
        alignas(16) float da_row[dh];
        for (std::size_t i = 0; i < W; ++i) fours(da_row)[i] = da[i];
        for (std::size_t c = 0; c < dh; ++c) *d_alpha_t += da_row[c];
    }
    return db;
}

// One head on one sequence (rows r0 … r0 + n − 1), α = 1 when alpha is null (the delta rule):
//   S' = α_t S_{t−1},  S_t = S' + β_t k̂_t (v_t − S'ᵀ k̂_t)ᵀ,  z_t = S_tᵀ q̂_t,
// every S_t kept in `states` (row r0 + t), and, when A is given, the unrolled matrix M
// (z_t = Σ_j M[t, j] v_j) in it. DH is d_h when the caller knows it at compile time (0: read
// it from Q): the loops over a row of the state then have a fixed length and unroll fully.
template <std::size_t DH, class T>
void delta_rule_of(const Mat<T>& Q, const Mat<T>& K, const Mat<T>& V, const Mat<T>& beta, const Mat<T>* alpha,
                   Mat<T>& states, Mat<T>* A, Mat<T>& Z, std::size_t r0, std::size_t n) {
    const std::size_t dh = DH > 0 ? DH : cols(Q), dd = dh * dh;
    std::vector<T> q_len, k_len;
    const std::vector<T> q = unit_rows(Q, r0, n, q_len), k = unit_rows(K, r0, n, k_len);  // (n × d_h)
    const T* v = V.data() + r0 * dh;
    T *s_all = states.data() + r0 * dd, *z = Z.data() + r0 * dh;
    const std::vector<T> zero(dd, T(0));  // S_{−1}
    std::vector<T> e(dh);
    for (std::size_t t = 0; t < n; ++t) {
        const T b_t = beta(r0 + t, 0), g_t = alpha ? (*alpha)(r0 + t, 0) : T(1);
        const T *q_t = q.data() + t * dh, *k_t = k.data() + t * dh, *v_t = v + t * dh;
        const T* S_prev = t > 0 ? s_all + (t - 1) * dd : zero.data();
        // S_t (d_h × d_h) keys × values, by rows
        if constexpr (DH > 0 && std::is_same_v<T, float>)
            delta_step_in_vectors<DH / 4>(S_prev, s_all + t * dd, q_t, k_t, v_t, b_t, g_t, z + t * dh);
        else
            delta_step<DH>(S_prev, s_all + t * dd, q_t, k_t, v_t, b_t, g_t, e.data(), z + t * dh, dh);
    }
    if (A) unrolled_weights(q, k, beta, alpha, *A, r0, n, dh);
}

// One token of delta_rule_backward, D = ∂loss/∂S_t → ∂loss/∂S_{t−1}: writes dq̂_t, dk̂_t, dv_t
// (and dα_t when asked), returns dβ_t. Two passes over the rows r of the state: the first adds
// q̂_t dz_tᵀ to D and sums w and e over r; the second, once e and w are whole, gives dk̂_t and
// moves D back. The pointers never overlap (__restrict), so the loops over c run as vectors.
template <std::size_t DH, class T>
__attribute__((always_inline)) inline T delta_step_backward(
    const T* __restrict S_t, const T* __restrict S_prev, const T* __restrict q_t, const T* __restrict k_t,
    const T* __restrict v_t, const T* __restrict dz_t, T b_t, T g_t, T* __restrict D, T* __restrict w,
    T* __restrict e, T* __restrict da, T* __restrict dq_t, T* __restrict dk_t, T* __restrict dv_t,
    T* __restrict d_alpha_t, std::size_t dh_at_run_time) {
    const std::size_t dh = DH > 0 ? DH : dh_at_run_time;
    // z_t = S_tᵀ q̂_t: dq̂_t = S_t dz_t, D += q̂_t dz_tᵀ; then, with S_t = S' + β_t k̂_t e_tᵀ,
    // S' = α_t S_{t−1}, e_t = v_t − S'ᵀ k̂_t: w = Dᵀ k̂_t and S_{t−1}ᵀ k̂_t, summed over r in turn
    for (std::size_t c = 0; c < dh; ++c) w[c] = e[c] = 0;
    for (std::size_t r = 0; r < dh; ++r) {
        T* D_r = D + r * dh;
        const T* S_prev_r = S_prev + r * dh;
        dq_t[r] = dot(S_t + r * dh, dz_t, dh);
        for (std::size_t c = 0; c < dh; ++c) {
            D_r[c] += q_t[r] * dz_t[c];
            w[c] += k_t[r] * D_r[c];
            e[c] += k_t[r] * S_prev_r[c];
        }
    }
    T db = 0;
    for (std::size_t c = 0; c < dh; ++c) {
        e[c] = v_t[c] - g_t * e[c];
        dv_t[c] = b_t * w[c];  // dv_t = β_t w
        db += w[c] * e[c];     // dβ_t = w · e_t
    }
    // dk̂_t = β_t (D e_t − α_t S_{t−1} w); dS' = D − β_t k̂_t wᵀ; dα_t = Σ dS' ⊙ S_{t−1} (by
    // columns, then across them); D ← α_t dS'
    for (std::size_t c = 0; c < dh; ++c) da[c] = 0;
    for (std::size_t r = 0; r < dh; ++r) {
        T* D_r = D + r * dh;
        const T* S_prev_r = S_prev + r * dh;
        dk_t[r] = b_t * (dot(D_r, e, dh) - g_t * dot(S_prev_r, w, dh));
        for (std::size_t c = 0; c < dh; ++c) {
            const T d_before = D_r[c] - b_t * k_t[r] * w[c];
            if (d_alpha_t) da[c] += d_before * S_prev_r[c];
            D_r[c] = g_t * d_before;
        }
    }
    if (d_alpha_t)
        for (std::size_t c = 0; c < dh; ++c) *d_alpha_t += da[c];
    return db;
}

// The backward pass of delta_rule, back through time: dZ → dQ, dK, dV, dβ (and dα).
template <std::size_t DH, class T>
void delta_rule_backward_of(const Mat<T>& Q, const Mat<T>& K, const Mat<T>& V, const Mat<T>& beta,
                            const Mat<T>* alpha, const Mat<T>& states, const Mat<T>& dZ, Mat<T>& dQ, Mat<T>& dK,
                            Mat<T>& dV, Mat<T>& d_beta, Mat<T>* d_alpha, std::size_t r0, std::size_t n) {
    const std::size_t dh = DH > 0 ? DH : cols(Q), dd = dh * dh;
    std::vector<T> q_len, k_len;
    const std::vector<T> q = unit_rows(Q, r0, n, q_len), k = unit_rows(K, r0, n, k_len);  // (n × d_h)
    const T *v = V.data() + r0 * dh, *s_all = states.data() + r0 * dd, *dz = dZ.data() + r0 * dh;
    T* dv = dV.data() + r0 * dh;
    std::vector<T> D(dd, T(0)), w(dh), e(dh), da(dh), dq(n * dh), dk(n * dh);  // D = ∂loss/∂S_t (d_h × d_h)
    const std::vector<T> zero(dd, T(0));
    for (std::size_t t = n; t-- > 0;) {
        const T b_t = beta(r0 + t, 0), g_t = alpha ? (*alpha)(r0 + t, 0) : T(1);
        const T* S_prev = t > 0 ? s_all + (t - 1) * dd : zero.data();
        const std::size_t o = t * dh;  // row t of the (n × d_h) matrices
        T d_alpha_t = 0;
        T* d_alpha_p = d_alpha ? &d_alpha_t : nullptr;
        if constexpr (DH > 0 && std::is_same_v<T, float>)
            d_beta(r0 + t, 0) = delta_step_backward_in_vectors<DH / 4>(
                s_all + t * dd, S_prev, q.data() + o, k.data() + o, v + o, dz + o, b_t, g_t, D.data(), dq.data() + o,
                dk.data() + o, dv + o, d_alpha_p);
        else
            d_beta(r0 + t, 0) = delta_step_backward<DH>(s_all + t * dd, S_prev, q.data() + o, k.data() + o, v + o,
                                                        dz + o, b_t, g_t, D.data(), w.data(), e.data(), da.data(),
                                                        dq.data() + o, dk.data() + o, dv + o, d_alpha_p, dh);
        if (d_alpha) (*d_alpha)(r0 + t, 0) = d_alpha_t;
    }
    unit_rows_backward(q, q_len, dq, dQ, r0, n);  // through q̂ = q / ‖q‖ and k̂ = k / ‖k‖
    unit_rows_backward(k, k_len, dk, dK, r0, n);
}

}  // namespace

// σ(X w + b), entry by entry after the product X w.
template <class T>
Mat<T> gate(const Mat<T>& X, const Mat<T>& w, T b) {
    Mat<T> g = mm(X, w);
    for (T& x : g) x = T(1) / (T(1) + std::exp(-(x + b)));
    return g;
}

// delta_rule_of for any d_h, compiled for the chapters' widths 8 and 16 (d_model 32, 4 or 2 heads).
template <class T>
void delta_rule(const Mat<T>& Q, const Mat<T>& K, const Mat<T>& V, const Mat<T>& beta, const Mat<T>* alpha,
                Mat<T>& states, Mat<T>* A, Mat<T>& Z, std::size_t r0, std::size_t n) {
    if (cols(Q) == 8) return delta_rule_of<8>(Q, K, V, beta, alpha, states, A, Z, r0, n);
    if (cols(Q) == 16) return delta_rule_of<16>(Q, K, V, beta, alpha, states, A, Z, r0, n);
    delta_rule_of<0>(Q, K, V, beta, alpha, states, A, Z, r0, n);
}

// delta_rule_backward_of, likewise.
template <class T>
void delta_rule_backward(const Mat<T>& Q, const Mat<T>& K, const Mat<T>& V, const Mat<T>& beta,
                         const Mat<T>* alpha, const Mat<T>& states, const Mat<T>& dZ, Mat<T>& dQ, Mat<T>& dK,
                         Mat<T>& dV, Mat<T>& d_beta, Mat<T>* d_alpha, std::size_t r0, std::size_t n) {
    if (cols(Q) == 8)
        return delta_rule_backward_of<8>(Q, K, V, beta, alpha, states, dZ, dQ, dK, dV, d_beta, d_alpha, r0, n);
    if (cols(Q) == 16)
        return delta_rule_backward_of<16>(Q, K, V, beta, alpha, states, dZ, dQ, dK, dV, d_beta, d_alpha, r0, n);
    delta_rule_backward_of<0>(Q, K, V, beta, alpha, states, dZ, dQ, dK, dV, d_beta, d_alpha, r0, n);
}

#define INSTANTIATE(T)                                                                                        \
    template Mat<T> gate(const Mat<T>&, const Mat<T>&, T);                                                    \
    template void delta_rule(const Mat<T>&, const Mat<T>&, const Mat<T>&, const Mat<T>&, const Mat<T>*,       \
                             Mat<T>&, Mat<T>*, Mat<T>&, std::size_t, std::size_t);                            \
    template void delta_rule_backward(const Mat<T>&, const Mat<T>&, const Mat<T>&, const Mat<T>&,             \
                                      const Mat<T>*, const Mat<T>&, const Mat<T>&, Mat<T>&, Mat<T>&, Mat<T>&, \
                                      Mat<T>&, Mat<T>*, std::size_t, std::size_t);
INSTANTIATE(float)
INSTANTIATE(double)
#undef INSTANTIATE

}  // namespace token_mixers
