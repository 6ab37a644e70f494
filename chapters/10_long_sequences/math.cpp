#include "chapters/10_long_sequences/math.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/math/matmul.hpp"
#include "common/math/random.hpp"

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
        for (std::size_t i = 0; i < d; ++i) h[i] = std::tanh(h[i]);
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

// Σ_j e_j v_j / Σ_j e_j over the keys `keys(i)` of each query, e_j = exp(q_i·k_j/√d − max), in double.
template <typename Keys>
Matrix softmax_loops(const Matrix& Q, const Matrix& K, const Matrix& V, Keys keys) {
    const std::size_t n = rows(Q), d = cols(Q);
    Matrix out = xt::zeros<float>({n, cols(V)});
    for (std::size_t i = 0; i < n; ++i) {
        const std::vector<std::size_t> js = keys(i);
        std::vector<double> s(js.size(), 0.0), o(cols(V), 0.0);
        double top = -std::numeric_limits<double>::infinity(), z = 0.0;
        for (std::size_t t = 0; t < js.size(); ++t) {
            for (std::size_t c = 0; c < d; ++c) s[t] += double(Q(i, c)) * double(K(js[t], c));
            s[t] /= std::sqrt(double(d));
            top = std::max(top, s[t]);
        }
        for (std::size_t t = 0; t < js.size(); ++t) {
            const double e = std::exp(s[t] - top);
            z += e;
            for (std::size_t c = 0; c < cols(V); ++c) o[c] += e * double(V(js[t], c));
        }
        for (std::size_t c = 0; c < cols(V); ++c) out(i, c) = static_cast<float>(o[c] / z);
    }
    return out;
}

std::vector<std::size_t> range(std::size_t begin, std::size_t end, std::size_t step = 1) {
    std::vector<std::size_t> r;
    for (std::size_t j = begin; j < end; j += step) r.push_back(j);
    return r;
}

}  // namespace

Matrix window_by_loops(const Matrix& Q, const Matrix& K, const Matrix& V, std::size_t w) {
    const std::size_t n = rows(K);
    return softmax_loops(Q, K, V, [&](std::size_t i) {
        // ┌ exercise window-keys
        if (w >= n) return range(0, n);
        const std::size_t b = std::min(i >= w / 2 ? i - w / 2 : 0, n - w);  // centred, shifted inward at the ends
        return range(b, b + w);
        // └ stub: return range(0, std::min(w, n));
    });
}

Matrix dilated_by_loops(const Matrix& Q, const Matrix& K, const Matrix& V, const std::vector<DilatedPair>& pairs) {
    const std::size_t n = rows(K);
    return softmax_loops(Q, K, V, [&](std::size_t i) {
        std::vector<std::size_t> keys;  // a key seen through two pairs counts twice, as in the mixture
        for (const DilatedPair& p : pairs) {
            const std::size_t w = std::min(p.segment, n), s0 = i / w * w;
            if ((i - s0) % p.dilation != 0) continue;  // i is not one of this pair's tokens
            for (const std::size_t j : range(s0, std::min(s0 + w, n), p.dilation)) keys.push_back(j);
        }
        return keys;
    });
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
