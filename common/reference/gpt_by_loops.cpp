#include "common/reference/gpt_by_loops.hpp"

#include <cmath>
#include <limits>

#include <xtensor/xbuilder.hpp>

#include "common/reference/layer_norm_by_loops.hpp"

namespace {

using Rows = Mat<double>;

Rows zeros(std::size_t n, std::size_t m) { return xt::zeros<double>({n, m}); }

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

double sigmoid(double s) { return 1.0 / (1.0 + std::exp(-s)); }

// Row i of the columns [c0, c0 + w) of m, turned by RoPE to position i when `rotary`.
std::vector<double> head_row(const Rows& m, std::size_t i, std::size_t c0, std::size_t w, bool rotary) {
    std::vector<double> r(w);
    for (std::size_t k = 0; k < w; ++k) r[k] = m(i, c0 + k);
    if (rotary)
        for (std::size_t p = 0; p < w / 2; ++p) {
            const double angle = double(i) * std::pow(10000.0, -2.0 * double(p) / double(w));
            const double a = r[2 * p], b = r[2 * p + 1];
            r[2 * p] = a * std::cos(angle) - b * std::sin(angle);
            r[2 * p + 1] = a * std::sin(angle) + b * std::cos(angle);
        }
    return r;
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0.0;
    for (std::size_t k = 0; k < a.size(); ++k) s += a[k] * b[k];
    return s;
}

// Softmax and linear attention of one head, row by row: the weights A (n × n) and z = A v.
void weighted_head(const std::vector<std::vector<double>>& q, const std::vector<std::vector<double>>& k,
                   const std::vector<std::vector<double>>& v, const GptAttention& at, double sink, Rows& A, Rows& z) {
    const std::size_t n = q.size(), dh = q[0].size(), dv = v[0].size();
    const auto feature = [](std::vector<double> x) {
        for (double& e : x) e = e > 0 ? e + 1.0 : std::exp(e);
        return x;
    };
    for (std::size_t i = 0; i < n; ++i) {
        double total = 0.0;
        if (at.mixer == Mixer::linear) {
            for (std::size_t j = 0; j <= i; ++j) total += (A(i, j) = dot(feature(q[i]), feature(k[j])));
        } else {
            double largest = at.sink_logit ? sink : -std::numeric_limits<double>::infinity();
            std::vector<char> visible(i + 1);
            for (std::size_t j = 0; j <= i; ++j) visible[j] = at.window == 0 || j + at.window > i || j < at.sinks;
            // top-k: a key is read when fewer than k visible keys score above it (or as much, earlier)
            std::vector<double> score(i + 1);
            for (std::size_t j = 0; j <= i; ++j) score[j] = dot(q[i], k[j]);
            std::vector<char> chosen = visible;
            for (std::size_t j = 0; at.top_k > 0 && j <= i; ++j) {
                std::size_t above = 0;
                for (std::size_t m = 0; m <= i; ++m)
                    above += visible[m] && (score[m] > score[j] || (score[m] == score[j] && m < j));
                chosen[j] = visible[j] && above < at.top_k;
            }
            for (std::size_t j = 0; j <= i; ++j)
                if (chosen[j]) largest = std::max(largest, A(i, j) = score[j] / std::sqrt(double(dh)));
            for (std::size_t j = 0; j <= i; ++j) total += (A(i, j) = chosen[j] ? std::exp(A(i, j) - largest) : 0.0);
            if (at.sink_logit) total += std::exp(sink - largest);
        }
        for (std::size_t j = 0; j <= i; ++j) A(i, j) /= total;
        for (std::size_t c = 0; c < dv; ++c)
            for (std::size_t j = 0; j <= i; ++j) z(i, c) += A(i, j) * v[j][c];
    }
}

// The delta rule of one head (gated with α), token by token: S (d_h × d_h, keys × values).
void delta_head(const std::vector<std::vector<double>>& q, const std::vector<std::vector<double>>& k,
                const std::vector<std::vector<double>>& v, const std::vector<double>& beta,
                const std::vector<double>& alpha, Rows& z) {
    const std::size_t n = q.size(), dh = q[0].size();
    const auto unit = [](std::vector<double> x) {
        const double length = std::max(std::sqrt(dot(x, x)), 1e-6);
        for (double& e : x) e /= length;
        return x;
    };
    std::vector<double> S(dh * dh, 0.0);
    for (std::size_t t = 0; t < n; ++t) {
        const std::vector<double> qh = unit(q[t]), kh = unit(k[t]);
        const double a = alpha.empty() ? 1.0 : alpha[t];
        for (double& e : S) e *= a;
        std::vector<double> error(dh);  // v_t − (α S)ᵀ k̂_t
        for (std::size_t c = 0; c < dh; ++c) {
            double held = 0.0;
            for (std::size_t r = 0; r < dh; ++r) held += S[r * dh + c] * kh[r];
            error[c] = v[t][c] - held;
        }
        for (std::size_t r = 0; r < dh; ++r)
            for (std::size_t c = 0; c < dh; ++c) S[r * dh + c] += beta[t] * kh[r] * error[c];
        for (std::size_t c = 0; c < dh; ++c)
            for (std::size_t r = 0; r < dh; ++r) z(t, c) += S[r * dh + c] * qh[r];
    }
}

}  // namespace

GptByLoops gpt_by_loops(const Gpt<float>& m, const Tokens& ids, const std::vector<HeadReplacement<double>>& replaced) {
    const GptConfig& c = m.config;
    const std::size_t n = ids.size(), d = c.d_model, H = c.heads, dh = d / H;
    const GptAttention& at = c.attention;
    const std::size_t g = at.kv_heads == 0 ? H : at.kv_heads;
    const bool delta = at.mixer == Mixer::delta || at.mixer == Mixer::gated_delta;
    const std::size_t rope = at.latent > 0 ? dh / 2 : 0;  // MLA's RoPE columns of q and k
    GptByLoops r;
    Rows x = zeros(n, d);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < d; ++j)
            x(i, j) = double(m.wte(ids[i], j)) + (at.rotary || at.latent > 0 ? 0.0 : double(m.wpe(i, j)));
    r.residual.push_back(x);
    for (std::size_t l = 0; l < c.layers; ++l) {
        const GptBlock<float>& b = m.h[l];
        const Rows a = layer_norm_rows(x, b.ln_1_weight, b.ln_1_bias);
        const Rows qkv = linear_rows(a, b.c_attn_weight, b.c_attn_bias);
        Rows kv;  // MLA: [k v] = c_KV · kv_upᵀ + b, c_KV the columns d + H·r … of qkv
        if (at.latent > 0) {
            Rows latent = zeros(n, at.latent);
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t col = 0; col < at.latent; ++col) latent(i, col) = qkv(i, d + H * rope + col);
            kv = linear_rows(latent, b.kv_up_weight, b.kv_up_bias);
        }
        Rows z_all = zeros(n, d);
        for (std::size_t h = 0; h < H; ++h) {
            const std::size_t j = h / (H / g);  // the key–value head of head h
            std::vector<std::vector<double>> q, k, v;
            for (std::size_t i = 0; i < n; ++i) {
                if (at.latent > 0) {  // [content | turned RoPE part]; the RoPE key is every head's
                    q.push_back(head_row(qkv, i, h * dh, dh, false));
                    k.push_back(head_row(kv, i, h * dh, dh, false));
                    const std::vector<double> q_rope = head_row(qkv, i, d + h * rope, rope, true);
                    const std::vector<double> k_rope = head_row(qkv, i, d + H * rope + at.latent, rope, true);
                    q.back().insert(q.back().end(), q_rope.begin(), q_rope.end());
                    k.back().insert(k.back().end(), k_rope.begin(), k_rope.end());
                    v.push_back(head_row(kv, i, d + h * dh, dh, false));
                    continue;
                }
                q.push_back(head_row(qkv, i, h * dh, dh, at.rotary));
                k.push_back(head_row(qkv, i, d + j * dh, dh, at.rotary));
                v.push_back(head_row(qkv, i, d + g * dh + j * dh, dh, false));
            }
            Rows A = zeros(n, n), z = zeros(n, dh);
            if (delta) {
                std::vector<double> beta(n), alpha;
                for (std::size_t i = 0; i < n; ++i) {
                    double s = 0.0, s_a = at.mixer == Mixer::gated_delta ? double(b.a_proj_bias(0, h)) : 0.0;
                    for (std::size_t col = 0; col < d; ++col) s += a(i, col) * double(b.b_proj_weight(h, col));
                    beta[i] = sigmoid(s);
                    if (at.mixer != Mixer::gated_delta) continue;
                    for (std::size_t col = 0; col < d; ++col) s_a += a(i, col) * double(b.a_proj_weight(h, col));
                    alpha.push_back(sigmoid(s_a));
                }
                delta_head(q, k, v, beta, alpha, z);
            } else {
                weighted_head(q, k, v, at, at.sink_logit ? double(b.sinks(0, h)) : 0.0, A, z);
            }
            for (const HeadReplacement<double>& rep : replaced)
                if (rep.layer == l && rep.head == h)
                    for (std::size_t i = 0; i < n; ++i)
                        for (std::size_t col = 0; col < dh; ++col) z(i, col) = rep.rows(rep.rows.shape(0) == 1 ? 0 : i, col);
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t col = 0; col < dh; ++col) z_all(i, h * dh + col) = z(i, col);
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
