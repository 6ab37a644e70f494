#include "common/reference/gpt_by_loops.hpp"

#include <cmath>
#include <limits>

#include "common/reference/layer_norm_by_loops.hpp"

namespace {

using Rows = Mat<double>;

Rows zeros(std::size_t n, std::size_t m) { return Rows::from_shape({n, m}) * 0.0; }

// LN(x) with γ, β ((1 × d) float), ε = 1e-5, row by row.
Rows layer_norm_rows(const Rows& x, const Mat<float>& gamma, const Mat<float>& beta) {
    return layer_norm_in_double(x, gamma, beta);
}

// x · Wᵀ + b, W (out × in) as nn.Linear stores it.
Rows linear_rows(const Rows& x, const Mat<float>& W, const Mat<float>& b) {
    const std::size_t n = x.shape(0), in = x.shape(1), out = W.shape(0);
    Rows y = zeros(n, out);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t o = 0; o < out; ++o) {
            double sum = double(b(0, o));
            for (std::size_t k = 0; k < in; ++k) sum += x(i, k) * double(W(o, k));
            y(i, o) = sum;
        }
    return y;
}

}  // namespace

GptByLoops gpt_by_loops(const Gpt<float>& m, const Tokens& ids, const std::vector<HeadReplacement<double>>& replaced) {
    const GptConfig& c = m.config;
    const std::size_t n = ids.size(), d = c.d_model, H = c.heads, dh = d / H;
    GptByLoops r;
    Rows x = zeros(n, d);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < d; ++j) x(i, j) = double(m.wte(ids[i], j)) + double(m.wpe(i, j));
    r.residual.push_back(x);
    for (std::size_t l = 0; l < c.layers; ++l) {
        const GptBlock<float>& b = m.h[l];
        const Rows qkv = linear_rows(layer_norm_rows(x, b.ln_1_weight, b.ln_1_bias), b.c_attn_weight, b.c_attn_bias);
        Rows z_all = zeros(n, d);
        for (std::size_t h = 0; h < H; ++h) {
            Rows A = zeros(n, n), z = zeros(n, dh);
            for (std::size_t i = 0; i < n; ++i) {
                double largest = -std::numeric_limits<double>::infinity(), total = 0.0;
                for (std::size_t j = 0; j <= i; ++j) {
                    double s = 0.0;
                    for (std::size_t k = 0; k < dh; ++k) s += qkv(i, h * dh + k) * qkv(j, d + h * dh + k);
                    A(i, j) = s / std::sqrt(double(dh));
                    largest = std::max(largest, A(i, j));
                }
                for (std::size_t j = 0; j <= i; ++j) total += (A(i, j) = std::exp(A(i, j) - largest));
                for (std::size_t j = 0; j <= i; ++j) A(i, j) /= total;
                for (std::size_t k = 0; k < dh; ++k) {
                    double sum = 0.0;
                    for (std::size_t j = 0; j <= i; ++j) sum += A(i, j) * qkv(j, 2 * d + h * dh + k);
                    z(i, k) = sum;
                }
            }
            for (const HeadReplacement<double>& rep : replaced)
                if (rep.layer == l && rep.head == h)
                    for (std::size_t i = 0; i < n; ++i)
                        for (std::size_t k = 0; k < dh; ++k) z(i, k) = rep.rows(rep.rows.shape(0) == 1 ? 0 : i, k);
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t k = 0; k < dh; ++k) z_all(i, h * dh + k) = z(i, k);
            r.weights.push_back(A), r.heads.push_back(z);
        }
        x += linear_rows(z_all, b.attn_proj_weight, b.attn_proj_bias);
        Rows u = linear_rows(layer_norm_rows(x, b.ln_2_weight, b.ln_2_bias), b.c_fc_weight, b.c_fc_bias);
        for (double& v : u) v = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
        x += linear_rows(u, b.mlp_proj_weight, b.mlp_proj_bias);
        r.residual.push_back(x);
    }
    r.logits = output_layer_by_loops(m, x);
    return r;
}

Mat<double> output_layer_by_loops(const Gpt<float>& m, const Mat<double>& x) {
    const Rows a = layer_norm_rows(x, m.ln_f_weight, m.ln_f_bias);
    const std::size_t n = a.shape(0), d = a.shape(1), V = m.config.vocab;
    Rows logits = zeros(n, V);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t v = 0; v < V; ++v) {
            double sum = 0.0;
            for (std::size_t j = 0; j < d; ++j) sum += a(i, j) * double(m.wte(v, j));
            logits(i, v) = sum;
        }
    return logits;
}
