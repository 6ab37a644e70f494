// A GPT's layers and their backward passes (gpt_layers.hpp gives the formulas), on raw rows:
// these loops run on every training step.
#include "common/math/gpt_layers.hpp"

#include <cmath>
#include <vector>

#include "common/math/feed_forward.hpp"
#include "common/math/fixed_order_product.hpp"
#include "common/math/layer_norm.hpp"

using namespace fixed_order;

namespace gpt_layers {

namespace {

template <class T>
void fit(Mat<T>& m, std::size_t r, std::size_t c) {
    if (m.shape(0) != r || m.shape(1) != c) m = Mat<T>::from_shape({r, c});
}

// out (1 × m) = Σ_rows a (n × m), the rows added in order.
template <class T>
void column_sums(const T* a, std::size_t n, std::size_t m, T* out) {
    for (std::size_t j = 0; j < m; ++j) out[j] = 0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < m; ++j) out[j] += a[i * m + j];
}

}  // namespace

template <class T>
void linear(const Mat<T>& x, const Mat<T>& W, const Mat<T>& b, Mat<T>& y) {
    const std::size_t N = x.shape(0), in = x.shape(1), out = W.shape(0);
    fit(y, N, out);
    // Wᵀ (in × out), copied by rows once: the product reads its rows k = 0 … in−1 in turn
    const std::vector<T> W_t = rows_transposed(W, 0, out);
    product_into(Operand<T>{x.data(), in, 1}, W_t.data(), y.data(), N, in, out);
    T* y_ = y.data();
    const T* b_ = b.data();
    for (std::size_t i = 0; i < N; ++i)
        for (std::size_t j = 0; j < out; ++j) y_[i * out + j] += b_[j];
}

template <class T>
void linear_backward(const Mat<T>& x, const Mat<T>& W, const Mat<T>& dy, Mat<T>& dW, Mat<T>& db, Mat<T>* dx,
                     Mat<T>* dx_add) {
    const std::size_t N = x.shape(0), in = x.shape(1), out = W.shape(0);
    fit(dW, out, in);
    fit(db, 1, out);
    // dW = dyᵀ x: dyᵀ read in place (entry (j, r) at dy[r·out + j])
    product_into(Operand<T>{dy.data(), 1, out}, x.data(), dW.data(), out, N, in);
    column_sums(dy.data(), N, out, db.data());
    if (!dx && !dx_add) return;
    Mat<T> local;
    Mat<T>& target = dx ? *dx : local;
    fit(target, N, in);
    product_into(Operand<T>{dy.data(), out, 1}, W.data(), target.data(), N, out, in);  // dx = dy W
    if (dx_add) add_into(*dx_add, target);
}

template <class T>
void layer_norm(const Mat<T>& x, const Mat<T>& gamma, const Mat<T>& beta, Mat<T>& y, Mat<T>& stats) {
    const std::size_t N = x.shape(0), d = x.shape(1);
    fit(y, N, d);
    fit(stats, N, 2);
    const T *g = gamma.data(), *b = beta.data();
    for (std::size_t i = 0; i < N; ++i) {
        const T* x_i = x.data() + i * d;
        T* y_i = y.data() + i * d;
        T mean = 0, variance = 0;  // two passes: E[x²] − E[x]² loses digits when the mean is large
        for (std::size_t c = 0; c < d; ++c) mean += x_i[c];
        mean /= T(d);
        for (std::size_t c = 0; c < d; ++c) variance += (x_i[c] - mean) * (x_i[c] - mean);
        variance /= T(d);
        const T r = T(1) / std::sqrt(variance + T(layer_norm_epsilon));
        for (std::size_t c = 0; c < d; ++c) y_i[c] = (x_i[c] - mean) * r * g[c] + b[c];
        stats(i, 0) = mean, stats(i, 1) = r;
    }
}

template <class T>
void layer_norm_backward(const Mat<T>& x, const Mat<T>& stats, const Mat<T>& gamma, const Mat<T>& dy,
                         Mat<T>& d_gamma, Mat<T>& d_beta, Mat<T>& dx) {
    const std::size_t N = x.shape(0), d = x.shape(1);
    fit(d_gamma, 1, d);
    fit(d_beta, 1, d);
    d_gamma.fill(T(0)), d_beta.fill(T(0));
    std::vector<T> x_hat(d), g(d);
    T *dg = d_gamma.data(), *db = d_beta.data();
    for (std::size_t i = 0; i < N; ++i) {
        const T *x_i = x.data() + i * d, *dy_i = dy.data() + i * d;
        const T mean = stats(i, 0), r = stats(i, 1);
        T mean_g = 0, mean_gx = 0;
        for (std::size_t c = 0; c < d; ++c) {
            x_hat[c] = (x_i[c] - mean) * r;
            g[c] = dy_i[c] * gamma.data()[c];
            dg[c] += dy_i[c] * x_hat[c];
            db[c] += dy_i[c];
        }
        for (std::size_t c = 0; c < d; ++c) mean_g += g[c], mean_gx += g[c] * x_hat[c];
        mean_g /= T(d), mean_gx /= T(d);
        T* dx_i = dx.data() + i * d;
        for (std::size_t c = 0; c < d; ++c) dx_i[c] += r * (g[c] - mean_g - x_hat[c] * mean_gx);
    }
}

template <class T>
void gelu(const Mat<T>& z, Mat<T>& y) {
    fit(y, z.shape(0), z.shape(1));
    const T* z_ = z.data();
    T* y_ = y.data();
    for (std::size_t i = 0; i < z.size(); ++i) y_[i] = exact_gelu(z_[i]);
}

template <class T>
void gelu_backward(const Mat<T>& z, Mat<T>& dy) {
    const T* z_ = z.data();
    T* d = dy.data();
    for (std::size_t i = 0; i < z.size(); ++i) d[i] *= exact_gelu_slope(z_[i]);
}

template <class T>
void add_into(Mat<T>& x, const Mat<T>& a) {
    T* x_ = x.data();
    const T* a_ = a.data();
    for (std::size_t i = 0; i < x.size(); ++i) x_[i] += a_[i];
}

#define INSTANTIATE(T)                                                                                     \
    template void linear(const Mat<T>&, const Mat<T>&, const Mat<T>&, Mat<T>&);                            \
    template void linear_backward(const Mat<T>&, const Mat<T>&, const Mat<T>&, Mat<T>&, Mat<T>&, Mat<T>*,  \
                                  Mat<T>*);                                                                \
    template void layer_norm(const Mat<T>&, const Mat<T>&, const Mat<T>&, Mat<T>&, Mat<T>&);               \
    template void layer_norm_backward(const Mat<T>&, const Mat<T>&, const Mat<T>&, const Mat<T>&, Mat<T>&, \
                                      Mat<T>&, Mat<T>&);                                                   \
    template void gelu(const Mat<T>&, Mat<T>&);                                                            \
    template void gelu_backward(const Mat<T>&, Mat<T>&);                                                   \
    template void add_into(Mat<T>&, const Mat<T>&);
INSTANTIATE(float)
INSTANTIATE(double)

}  // namespace gpt_layers
