#include "chapters/10_long_sequences/math.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/numbers/matmul.hpp"
#include "common/numbers/random.hpp"

Inputs random_inputs(std::size_t n, std::size_t d, std::uint64_t seed) {
    return {Random(seed).normal_matrix(n, d), Random(seed + 1).normal_matrix(n, d), Random(seed + 2).normal_matrix(n, d)};
}

Inputs local_inputs(std::size_t n, std::size_t d, std::uint64_t seed) {
    const float rho = 0.99f, fresh = std::sqrt(1.0f - rho * rho);
    Matrix X = Random(seed).normal_matrix(n, d);
    for (std::size_t i = 1; i < n; ++i)
        for (std::size_t c = 0; c < d; ++c) X(i, c) = rho * X(i - 1, c) + fresh * X(i, c);
    return {X, X, Random(seed + 2).normal_matrix(n, d)};
}

Matrix recurrent_layer(const Matrix& X, const Matrix& W_x, const Matrix& W_h) {
    const std::size_t n = rows(X), d = cols(W_h);
    Matrix H = matmul(X, W_x);  // (n × d): x_t · W_x for every t at once
    for (std::size_t t = 0; t < n; ++t) {  // then n dependent steps, written so the compiler vectorises them
        float* h = H.data() + t * d;
        if (t > 0) {
            const float* previous = H.data() + (t - 1) * d;
            for (std::size_t j = 0; j < d; ++j) {  // h += previous_j · (row j of W_h)
                const float* w = W_h.data() + j * d;
                for (std::size_t i = 0; i < d; ++i) h[i] += previous[j] * w[i];
            }
        }
        for (std::size_t i = 0; i < d; ++i) h[i] = float(std::tanh(double(h[i])));  // float tanh differs by C library
    }
    return H;
}

OnlineTrace online_softmax_one_query(const Matrix& Q, std::size_t row, const Matrix& K, const Matrix& V) {
    const std::size_t d = cols(K), dv = cols(V);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    float m = -std::numeric_limits<float>::infinity();  // the largest score so far
    float l = 0.0f;                                     // Σ exp(score − m) so far
    Vector o = xt::zeros<float>({dv});                  // Σ exp(score − m) · v so far
    OnlineTrace trace;
    for (std::size_t j = 0; j < rows(K); ++j) {
        float s = 0.0f;
        for (std::size_t c = 0; c < d; ++c) s += Q(row, c) * K(j, c);
        s *= scale;
        // ┌ exercise online-step
        const float m_new = std::max(m, s);
        const float rescale = std::exp(m - m_new);  // the old terms were relative to m: shift them to m_new
        const float p = std::exp(s - m_new);
        l = l * rescale + p;
        for (std::size_t c = 0; c < dv; ++c) o(c) = o(c) * rescale + p * V(j, c);
        // └ stub: const float m_new = s, rescale = 1.0f, p = 1.0f; l += p;
        trace.steps.push_back({s, m_new, rescale, p, l, o(0) / l});
        m = m_new;
    }
    trace.output = o / l;
    return trace;
}

namespace {

std::vector<std::size_t> range(std::size_t begin, std::size_t end) {
    std::vector<std::size_t> r;
    for (std::size_t j = begin; j < end; ++j) r.push_back(j);
    return r;
}

}  // namespace

std::vector<std::size_t> window_keys(std::size_t i, std::size_t n, std::size_t w) {
    // ┌ exercise window-keys
    if (w >= n) return range(0, n);
    const std::size_t b = std::min(i >= w / 2 ? i - w / 2 : 0, n - w);  // centred, shifted inward at the ends
    return range(b, b + w);
    // └ stub: return range(0, std::min(w, n));
}

double relative_error(const Matrix& a, const Matrix& b) {
    double diff = 0, ref = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double e = static_cast<double>(a.flat(i)) - b.flat(i);
        diff += e * e, ref += static_cast<double>(b.flat(i)) * b.flat(i);
    }
    return std::sqrt(diff / ref);
}

double loglog_slope(const std::vector<double>& x, const std::vector<double>& y) {
    const std::size_t k = std::min(x.size(), y.size());
    if (k < 2) return std::numeric_limits<double>::quiet_NaN();
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < k; ++i) {
        const double lx = std::log(x[i]), ly = std::log(y[i]);
        sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
    }
    const double kk = static_cast<double>(k);
    return (kk * sxy - sx * sy) / (kk * sxx - sx * sx);
}
