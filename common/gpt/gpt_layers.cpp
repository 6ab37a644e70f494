// A GPT's layers and their backward passes (gpt_layers.hpp gives the formulas), on raw rows:
// these loops run on every training step.
#include "common/gpt/gpt_layers.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "common/block/feed_forward.hpp"
#include "common/block/layer_norm.hpp"
#include "common/numbers/eight_floats.hpp"
#include "common/numbers/fixed_order_product.hpp"
#include "common/numbers/threads.hpp"

using namespace fixed_order;

namespace gpt_layers {

namespace {

// out (1 × m) = Σ_rows a (n × m), the rows added in order (threads take columns).
template <class T>
void column_sums(const T* a, std::size_t n, std::size_t m, T* out) {
    threads::split(m, [&](std::size_t j0, std::size_t j1) {
        for (std::size_t j = j0; j < j1; ++j) out[j] = 0;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = j0; j < j1; ++j) out[j] += a[i * m + j];
    }, 64);
}

}  // namespace

template <class T>
void linear(const Mat<T>& x, const Mat<T>& W, const Mat<T>& b, Mat<T>& y) {
    const std::size_t N = x.shape(0), in = x.shape(1), out = W.shape(0);
    reshape_to(y, N, out);
    product_by_transpose_into(Operand<T>{x.data(), in, 1}, W.data(), y.data(), N, in, out);  // x Wᵀ
    T* y_ = y.data();
    const T* b_ = b.data();
    threads::split(N, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i)
            for (std::size_t j = 0; j < out; ++j) y_[i * out + j] += b_[j];
    }, 16);
}

template <class T>
void linear_backward(const Mat<T>& x, const Mat<T>& W, const Mat<T>& dy, Mat<T>& dW, Mat<T>& db, Mat<T>* dx,
                     Mat<T>* dx_add) {
    const std::size_t N = x.shape(0), in = x.shape(1), out = W.shape(0);
    reshape_to(dW, out, in);
    reshape_to(db, 1, out);
    // dW = dyᵀ x: dyᵀ read in place (entry (j, r) at dy[r·out + j])
    product_into(Operand<T>{dy.data(), 1, out}, x.data(), dW.data(), out, N, in);
    column_sums(dy.data(), N, out, db.data());
    if (!dx && !dx_add) return;
    Mat<T> local;
    Mat<T>& target = dx ? *dx : local;
    reshape_to(target, N, in);
    product_into(Operand<T>{dy.data(), out, 1}, W.data(), target.data(), N, out, in);  // dx = dy W
    if (dx_add) add_into(*dx_add, target);
}

// Σ_c term(c), c = 0 … d−1, as eight running sums (term c adds to sum c mod 8, in turn) then
// ((s₀ + s₁) + (s₂ + s₃)) + ((s₄ + s₅) + (s₆ + s₇)): a fixed order, which the compiler runs as one
// vector of eight sums instead of d additions each waiting for the last (a LayerNorm's row).
template <class T, class Term>
T sum_in_eights(std::size_t d, Term term) {
    T part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    std::size_t c = 0;
    for (; c + 8 <= d; c += 8)
        for (std::size_t l = 0; l < 8; ++l) part[l] += term(c + l);
    for (std::size_t l = 0; c + l < d; ++l) part[l] += term(c + l);
    return ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
}

template <class T>
void layer_norm(const Mat<T>& x, const Mat<T>& gamma, const Mat<T>& beta, Mat<T>& y, Mat<T>& stats) {
    const std::size_t N = x.shape(0), d = x.shape(1);
    reshape_to(y, N, d);
    reshape_to(stats, N, 2);
    const T *g = gamma.data(), *b = beta.data();
    threads::split(N, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            const T* x_i = x.data() + i * d;
            T* y_i = y.data() + i * d;
            // two passes: E[x²] − E[x]² loses digits when the mean is large
            const T mean = sum_in_eights<T>(d, [&](std::size_t c) { return x_i[c]; }) / T(d);
            const T variance = sum_in_eights<T>(d, [&](std::size_t c) { return (x_i[c] - mean) * (x_i[c] - mean); }) / T(d);
            const T r = T(1) / std::sqrt(variance + T(layer_norm_epsilon));
            for (std::size_t c = 0; c < d; ++c) y_i[c] = (x_i[c] - mean) * r * g[c] + b[c];
            stats(i, 0) = mean, stats(i, 1) = r;
        }
    }, 16);
}

template <class T>
void layer_norm_backward(const Mat<T>& x, const Mat<T>& stats, const Mat<T>& gamma, const Mat<T>& dy,
                         Mat<T>& d_gamma, Mat<T>& d_beta, Mat<T>& dx) {
    const std::size_t N = x.shape(0), d = x.shape(1);
    reshape_to(d_gamma, 1, d);
    reshape_to(d_beta, 1, d);
    d_gamma.fill(T(0)), d_beta.fill(T(0));
    T *dg = d_gamma.data(), *db = d_beta.data();
    // dx row by row (threads take rows)
    threads::split(N, [&](std::size_t begin, std::size_t end) {
        std::vector<T> x_hat(d), g(d);
        for (std::size_t i = begin; i < end; ++i) {
            const T *x_i = x.data() + i * d, *dy_i = dy.data() + i * d;
            const T mean = stats(i, 0), r = stats(i, 1);
            for (std::size_t c = 0; c < d; ++c) {
                x_hat[c] = (x_i[c] - mean) * r;
                g[c] = dy_i[c] * gamma.data()[c];
            }
            const T mean_g = sum_in_eights<T>(d, [&](std::size_t c) { return g[c]; }) / T(d);
            const T mean_gx = sum_in_eights<T>(d, [&](std::size_t c) { return g[c] * x_hat[c]; }) / T(d);
            T* dx_i = dx.data() + i * d;
            for (std::size_t c = 0; c < d; ++c) dx_i[c] += r * (g[c] - mean_g - x_hat[c] * mean_gx);
        }
    }, 16);
    // dγ and dβ column by column, each a sum over the rows in order (threads take columns)
    threads::split(d, [&](std::size_t c0, std::size_t c1) {
        for (std::size_t i = 0; i < N; ++i) {
            const T *x_i = x.data() + i * d, *dy_i = dy.data() + i * d;
            const T mean = stats(i, 0), r = stats(i, 1);
            for (std::size_t c = c0; c < c1; ++c) {
                dg[c] += dy_i[c] * ((x_i[c] - mean) * r);
                db[c] += dy_i[c];
            }
        }
    }, 32);
}

// ---- GELU in float, eight numbers at a time ----
//
// erf and exp from libm cost a call per number (1.6 M of each in a step of the char recipe: a
// sixth of the step). In float GELU takes erf as PyTorch's vectorised CPU kernel does
// (Abramowitz & Stegun 7.1.26, |error| < 1.5e-7), and e^x from its own few lines below: only
// +, −, ×, ÷ in a fixed order (no fused multiply-add), the same numbers on every machine. In
// double (the gradient check) GELU is std::erf's, exactly (feed_forward.hpp).
namespace {

// e^x for x ≤ 0 (down to −87: below that, 2⁻¹²⁶ ≈ 1e-38, which GELU multiplies away), in place:
// x = n·ln 2 + r with |r| ≤ ln2/2, e^r by its Taylor series to r⁶ (error < 1.2e-7 of e^r),
// times 2ⁿ written straight into the exponent's bits.
__attribute__((always_inline)) inline void exp_of_negative(eight_floats& x) {
    x = x < -87.0f ? eight_floats{} - 87.0f : x;
    // adding 1.5 · 2²³ rounds to a whole number n, which the float's low bits then hold
    const eight_floats shifted = x * 1.44269504f + 12582912.0f, n = shifted - 12582912.0f;
    const eight_floats r = (x - n * 0.693145752f) - n * 1.42860677e-6f;  // ln 2 in two parts
    eight_floats p = r * (1.0f / 720) + 1.0f / 120;
    p = p * r + 1.0f / 24, p = p * r + 1.0f / 6, p = p * r + 0.5f, p = p * r + 1.0f, p = p * r + 1.0f;
    eight_ints bits;
    __builtin_memcpy(&bits, &shifted, sizeof bits);
    bits = (bits - 0x4B400000 + 127) << 23;  // 2ⁿ: n + 127 in the exponent's bits
    eight_floats power;
    __builtin_memcpy(&power, &bits, sizeof power);
    x = p * power;
}

// erf(x) = 1 − (a₁t + a₂t² + a₃t³ + a₄t⁴ + a₅t⁵) e^(−x²), t = 1/(1 + p|x|), sign of x; in place.
__attribute__((always_inline)) inline void erf_of(eight_floats& x) {
    const eight_floats a = x < 0.0f ? -x : x;
    const eight_floats t = 1.0f / (a * 0.3275911f + 1.0f);
    eight_floats poly = t * 1.061405429f - 1.453152027f;
    poly = poly * t + 1.421413741f, poly = poly * t - 0.284496736f, poly = poly * t + 0.254829592f, poly = poly * t;
    eight_floats e = -(a * a);
    exp_of_negative(e);
    e = 1.0f - poly * e;
    x = x < 0.0f ? -e : e;
}

// Vectors of eight are passed by reference here: returned by value from code compiled for any
// x86-64, they would change the calling convention (GCC's -Wpsabi).

// z ← Φ(z) = (1 + erf(z/√2)) / 2, the normal distribution's share below z.
__attribute__((always_inline)) inline void normal_cdf(eight_floats& z) {
    z = z * 0.707106781f;
    erf_of(z);
    z = 0.5f * (1.0f + z);
}

// cdf ← GELU′(z) = Φ(z) + z φ(z), φ(z) = e^(−z²/2)/√(2π), from Φ(z) kept by the forward pass.
__attribute__((always_inline)) inline void gelu_slope(const eight_floats& z, eight_floats& cdf) {
    eight_floats density = -0.5f * z * z;
    exp_of_negative(density);
    cdf = cdf + z * (density * 0.398942280f);
}

// v ← the `here` ≤ 8 numbers at p (the rest 0), and back.
__attribute__((always_inline)) inline void load(const float* p, std::size_t here, eight_floats& v) {
    if (here == 8) {
        v = *reinterpret_cast<const eight_floats_anywhere*>(p);
        return;
    }
    v = eight_floats{};
    for (std::size_t k = 0; k < here; ++k) v[k] = p[k];
}
__attribute__((always_inline)) inline void store(float* p, const eight_floats& v, std::size_t here) {
    if (here == 8) *reinterpret_cast<eight_floats_anywhere*>(p) = v;
    else
        for (std::size_t k = 0; k < here; ++k) p[k] = v[k];
}

// y = z Φ(z) over `count` numbers, eight at a time, and Φ(z) into cdf when it is given.
COMPILED_FOR_AVX2_AND_ANY_X86_64
void gelu_floats(const float* z, float* y, float* cdf, std::size_t count) {
    for (std::size_t i = 0; i < count; i += 8) {
        const std::size_t here = std::min<std::size_t>(8, count - i);
        eight_floats zv, phi;
        load(z + i, here, zv);
        phi = zv;
        normal_cdf(phi);
        store(y + i, zv * phi, here);
        if (cdf) store(cdf + i, phi, here);
    }
}

// dy ⊙= GELU′(z) over `count` numbers, from z and Φ(z).
COMPILED_FOR_AVX2_AND_ANY_X86_64
void gelu_slope_floats(const float* z, const float* cdf, float* dy, std::size_t count) {
    for (std::size_t i = 0; i < count; i += 8) {
        const std::size_t here = std::min<std::size_t>(8, count - i);
        eight_floats zv, slope, d;
        load(z + i, here, zv), load(cdf + i, here, slope), load(dy + i, here, d);
        gelu_slope(zv, slope);
        store(dy + i, d * slope, here);
    }
}

}  // namespace

template <class T>
void gelu(const Mat<T>& z, Mat<T>& y, Mat<T>* cdf) {
    reshape_to(y, z.shape(0), z.shape(1));
    if (cdf) reshape_to(*cdf, z.shape(0), z.shape(1));
    const T* z_ = z.data();
    T *y_ = y.data(), *cdf_ = cdf ? cdf->data() : nullptr;
    if constexpr (std::is_same_v<T, float>)  // each number alone: threads take runs of 2048 (a multiple of eight)
        return threads::split(z.size(), [&](std::size_t begin, std::size_t end) {
            gelu_floats(z_ + begin, y_ + begin, cdf_ ? cdf_ + begin : nullptr, end - begin);
        }, 2048);
    for (std::size_t i = 0; i < z.size(); ++i) {
        y_[i] = exact_gelu(z_[i]);
        if (cdf_) cdf_[i] = exact_normal_cdf(z_[i]);
    }
}

template <class T>
void gelu_backward(const Mat<T>& z, const Mat<T>& cdf, Mat<T>& dy) {
    const T *z_ = z.data(), *cdf_ = cdf.data();
    T* d = dy.data();
    if constexpr (std::is_same_v<T, float>)
        return threads::split(z.size(), [&](std::size_t begin, std::size_t end) {
            gelu_slope_floats(z_ + begin, cdf_ + begin, d + begin, end - begin);
        }, 2048);
    for (std::size_t i = 0; i < z.size(); ++i) d[i] *= cdf_[i] + z_[i] * T(normal_density(double(z_[i])));  // exact_gelu_slope
}

template <class T>
void add_into(Mat<T>& x, const Mat<T>& a) {
    T* x_ = x.data();
    const T* a_ = a.data();
    threads::split(x.size(), [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) x_[i] += a_[i];
    }, 4096);
}

template <class T>
void sum_into(const Mat<T>& x, const Mat<T>& a, Mat<T>& y) {
    reshape_to(y, x.shape(0), x.shape(1));
    const T *x_ = x.data(), *a_ = a.data();
    T* y_ = y.data();
    threads::split(x.size(), [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) y_[i] = x_[i] + a_[i];
    }, 4096);
}

#define INSTANTIATE(T)                                                                                     \
    template void linear(const Mat<T>&, const Mat<T>&, const Mat<T>&, Mat<T>&);                            \
    template void linear_backward(const Mat<T>&, const Mat<T>&, const Mat<T>&, Mat<T>&, Mat<T>&, Mat<T>*,  \
                                  Mat<T>*);                                                                \
    template void layer_norm(const Mat<T>&, const Mat<T>&, const Mat<T>&, Mat<T>&, Mat<T>&);               \
    template void layer_norm_backward(const Mat<T>&, const Mat<T>&, const Mat<T>&, const Mat<T>&, Mat<T>&, \
                                      Mat<T>&, Mat<T>&);                                                   \
    template void gelu(const Mat<T>&, Mat<T>&, Mat<T>*);                                                   \
    template void gelu_backward(const Mat<T>&, const Mat<T>&, Mat<T>&);                                    \
    template void add_into(Mat<T>&, const Mat<T>&);                                                        \
    template void sum_into(const Mat<T>&, const Mat<T>&, Mat<T>&);
INSTANTIATE(float)
INSTANTIATE(double)
#undef INSTANTIATE

}  // namespace gpt_layers
