// A GPT one token at a time, through what each attention keeps (gpt_decoding.hpp gives the formulas).
#include "common/gpt/gpt_decoding.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <xtensor/xbuilder.hpp>

#include "common/gpt/gpt_attention.hpp"
#include "common/gpt/gpt_layers.hpp"
#include "common/numbers/input_error.hpp"

using namespace gpt_layers;

namespace {

// a · b over n entries, added in order (the forward pass's products add theirs in the same order).
float dot(const float* a, const float* b, std::size_t n) {
    float s = 0.0f;
    for (std::size_t c = 0; c < n; ++c) s += a[c] * b[c];
    return s;
}

// The w columns at x turned by position p, pair by pair (gpt_attention.cpp's turn_columns).
void turn(float* x, std::size_t w, const GptCache& cache, std::size_t p) {
    const float *c = cache.rope_cos.data() + p * (w / 2), *s = cache.rope_sin.data() + p * (w / 2);
    for (std::size_t i = 0; i < w / 2; ++i) {
        const float a = x[2 * i], b = x[2 * i + 1];
        x[2 * i] = a * c[i] - b * s[i];
        x[2 * i + 1] = a * s[i] + b * c[i];
    }
}

// A window with sinks keeps the first s keys and the last w: the oldest key past the sinks
// leaves once s + w are kept (no later query reads it).
void forget_outside_window(const GptAttention& at, std::vector<float>& keys, std::vector<float>& values,
                           std::size_t key_width, std::size_t value_width) {
    if (at.window == 0 || keys.size() / key_width <= at.sinks + at.window) return;
    keys.erase(keys.begin() + std::ptrdiff_t(at.sinks * key_width), keys.begin() + std::ptrdiff_t((at.sinks + 1) * key_width));
    if (value_width > 0)
        values.erase(values.begin() + std::ptrdiff_t(at.sinks * value_width),
                     values.begin() + std::ptrdiff_t((at.sinks + 1) * value_width));
}

// The softmax weights of one query over the n kept keys from raw scores s_j = q · k_j: top-k
// keeps the k largest (equal: the earlier key), then softmax of s_j · scale, with the sink's
// column e^{s_h} in the sum when there is one. The weights sum to 1 less the sink's share.
std::vector<float> softmax_weights(std::vector<float> s, float scale, std::size_t top_k, const float* sink) {
    const std::size_t n = s.size();
    std::vector<char> kept(n, 1);
    if (top_k > 0 && n > top_k) {
        std::vector<std::size_t> order(n);
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(top_k), order.end(),
                          [&](std::size_t a, std::size_t b) { return s[a] > s[b] || (s[a] == s[b] && a < b); });
        for (std::size_t r = top_k; r < n; ++r) kept[order[r]] = 0;
    }
    float top = -std::numeric_limits<float>::infinity();
    for (std::size_t j = 0; j < n; ++j)
        if (kept[j]) top = std::max(top, s[j] *= scale);
    if (sink) top = std::max(top, *sink);
    float total = 0.0f;
    for (std::size_t j = 0; j < n; ++j) total += (s[j] = kept[j] ? std::exp(s[j] - top) : 0.0f);
    if (sink) total += std::exp(*sink - top);
    for (float& w : s) w /= total;
    return s;
}

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// Head h of an MLA block: keys and values never made, the up-projection absorbed (gpt_decoding.hpp).
void mla_head(const GptBlock<float>& b, const GptAttention& at, const std::vector<float>& kept, const float* q,
              const float* q_rope, std::size_t h, std::size_t dh, std::size_t r, const float* sink, float* z) {
    const std::size_t dc = at.latent, width = dc + r, n = kept.size() / width, d = b.kv_up_weight.shape(0) / 2;
    // 1. the absorbed query q̃ = U_hᵀ q_h (d_c)
    std::vector<float> absorbed(dc, 0.0f);
    for (std::size_t i = 0; i < dh; ++i)
        for (std::size_t c = 0; c < dc; ++c) absorbed[c] += q[i] * b.kv_up_weight(h * dh + i, c);
    // 2. s_j = q̃ · c_j + RoPE(q_R) · RoPE(k_R)_j, softmax by √(d_h + r) (q_h · b_h, the same for
    //    every key, would move every score of the row alike: softmax drops it)
    std::vector<float> s(n);
    for (std::size_t j = 0; j < n; ++j)
        s[j] = dot(absorbed.data(), kept.data() + j * width, dc) + dot(q_rope, kept.data() + j * width + dc, r);
    const std::vector<float> w = softmax_weights(s, 1.0f / std::sqrt(float(dh + r)), at.top_k, sink);
    // 3. m = Σ_j a_j c_j (d_c), then z_h = W_h m + b'_h Σ_j a_j
    std::vector<float> m(dc, 0.0f);
    float weight_sum = 0.0f;
    for (std::size_t j = 0; j < n; ++j) {
        weight_sum += w[j];
        for (std::size_t c = 0; c < dc; ++c) m[c] += w[j] * kept[j * width + c];
    }
    for (std::size_t i = 0; i < dh; ++i)
        z[i] = dot(b.kv_up_weight.data() + (d + h * dh + i) * dc, m.data(), dc) + b.kv_up_bias(0, d + h * dh + i) * weight_sum;
}

// One block for one new token at position p: x (1 × d) updated in place, what it keeps cached.
void block_step(const GptBlock<float>& b, const GptConfig& c, GptCache& cache, std::size_t layer, Mat<float>& x) {
    const GptAttention& at = c.attention;
    const std::size_t d = c.d_model, H = c.heads, dh = d / H, g = kv_heads(c), group = H / g, p = cache.length;
    const std::size_t r = at.latent > 0 ? rope_width(c) : 0;
    std::vector<std::vector<float>>&keys = cache.keys[layer], &values = cache.values[layer], &states = cache.states[layer];
    Mat<float> a, stats, qkv;
    layer_norm(x, b.ln_1_weight, b.ln_1_bias, a, stats);
    linear(a, b.c_attn_weight, b.c_attn_bias, qkv);  // (1 × qkv_width)
    float* row = qkv.data();
    // 1. turn q and k by position (RoPE), and keep this token's keys and values (or its latent)
    if (at.rotary)
        for (std::size_t h = 0; h < H + g; ++h) turn(row + h * dh, dh, cache, p);  // the H queries, then the g keys
    if (at.latent > 0) {
        for (std::size_t h = 0; h <= H; ++h) turn(row + d + h * r + (h == H ? at.latent : 0), r, cache, p);
        keys[0].insert(keys[0].end(), row + d + H * r, row + d + H * r + at.latent + r);  // c_KV, RoPE(k_R)
        forget_outside_window(at, keys[0], values[0], at.latent + r, 0);
    } else if (at.mixer == Mixer::softmax) {
        for (std::size_t j = 0; j < g; ++j) {
            keys[j].insert(keys[j].end(), row + d + j * dh, row + d + (j + 1) * dh);
            values[j].insert(values[j].end(), row + d + g * dh + j * dh, row + d + g * dh + (j + 1) * dh);
            forget_outside_window(at, keys[j], values[j], dh, dh);
        }
    }
    // 2. each head's z_h into its columns of z
    Mat<float> z = xt::zeros<float>({std::size_t{1}, d});
    for (std::size_t h = 0; h < H; ++h) {
        const std::size_t j = h / group;  // head h's key–value head
        const float *q = row + h * dh, *k = row + d + j * dh, *v = row + d + g * dh + j * dh;
        const float* sink = at.sink_logit ? &b.sinks(0, h) : nullptr;
        float* z_h = z.data() + h * dh;
        if (at.latent > 0) {
            mla_head(b, at, keys[0], q, row + d + h * r, h, dh, r, sink, z_h);
        } else if (at.mixer == Mixer::softmax) {  // scores s_j = q · k_j over the keys kept, then z_h = Σ_j a_j v_j
            const std::size_t n = keys[j].size() / dh;
            std::vector<float> s(n);
            for (std::size_t i = 0; i < n; ++i) s[i] = dot(q, keys[j].data() + i * dh, dh);
            const std::vector<float> w = softmax_weights(s, 1.0f / std::sqrt(float(dh)), at.top_k, sink);
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t col = 0; col < dh; ++col) z_h[col] += w[i] * values[j][i * dh + col];
            cache.newest_weights[layer * H + h] = w;
        } else if (at.mixer == Mixer::linear) {  // S += φ(k) vᵀ, n += φ(k); z = φ(q)ᵀ S / φ(q) · n
            const auto phi = [](float e) { return e > 0.0f ? e + 1.0f : std::exp(e); };
            float *S = states[h].data(), *norm = S + dh * dh;
            for (std::size_t i = 0; i < dh; ++i) {
                const float fk = phi(k[i]);
                norm[i] += fk;
                for (std::size_t col = 0; col < dh; ++col) S[i * dh + col] += fk * v[col];
            }
            float below = 0.0f;
            for (std::size_t i = 0; i < dh; ++i) {
                const float fq = phi(q[i]);
                below += fq * norm[i];
                for (std::size_t col = 0; col < dh; ++col) z_h[col] += fq * S[i * dh + col];
            }
            for (std::size_t col = 0; col < dh; ++col) z_h[col] /= below;
        } else {  // the delta rule: S = α S; S += β k̂ (v − Sᵀ k̂)ᵀ; z = Sᵀ q̂
            const auto unit = [dh](const float* e) {
                std::vector<float> u(e, e + dh);
                const float length = std::max(std::sqrt(dot(e, e, dh)), 1e-6f);
                for (float& ui : u) ui /= length;
                return u;
            };
            const std::vector<float> q_hat = unit(q), k_hat = unit(k);
            const float beta = sigmoid(dot(a.data(), b.b_proj_weight.data() + h * d, d));
            const float alpha = at.mixer == Mixer::gated_delta
                                    ? sigmoid(dot(a.data(), b.a_proj_weight.data() + h * d, d) + b.a_proj_bias(0, h))
                                    : 1.0f;
            float* S = states[h].data();  // keys × values
            for (std::size_t e = 0; e < dh * dh; ++e) S[e] *= alpha;
            std::vector<float> error(v, v + dh);  // v − Sᵀ k̂
            for (std::size_t i = 0; i < dh; ++i)
                for (std::size_t col = 0; col < dh; ++col) error[col] -= S[i * dh + col] * k_hat[i];
            for (std::size_t i = 0; i < dh; ++i)
                for (std::size_t col = 0; col < dh; ++col) S[i * dh + col] += beta * k_hat[i] * error[col];
            for (std::size_t i = 0; i < dh; ++i)
                for (std::size_t col = 0; col < dh; ++col) z_h[col] += S[i * dh + col] * q_hat[i];
        }
    }
    // 3. the rest of the block, as the full pass computes it
    Mat<float> out;
    linear(z, b.attn_proj_weight, b.attn_proj_bias, out);
    add_into(x, out);
    Mat<float> u, gelu_u;
    layer_norm(x, b.ln_2_weight, b.ln_2_bias, a, stats);
    linear(a, b.c_fc_weight, b.c_fc_bias, u);
    gelu(u, gelu_u);
    linear(gelu_u, b.mlp_proj_weight, b.mlp_proj_bias, out);
    add_into(x, out);
}

}  // namespace

GptCache empty_cache(const GptConfig& c) {
    const GptAttention& at = c.attention;
    const std::size_t dh = c.d_model / c.heads;
    GptCache cache;
    const std::size_t held = at.latent > 0 ? 1 : at.mixer == Mixer::softmax ? kv_heads(c) : 0;
    cache.keys.assign(c.layers, std::vector<std::vector<float>>(held));
    cache.values = cache.keys;
    const std::size_t state = at.mixer == Mixer::linear ? dh * dh + dh : at.mixer == Mixer::softmax ? 0 : dh * dh;
    cache.states.assign(c.layers, std::vector<std::vector<float>>(state > 0 ? c.heads : 0, std::vector<float>(state, 0.0f)));
    if (rope_width(c) > 0) rope_table(c.context, rope_width(c), cache.rope_cos, cache.rope_sin);
    cache.newest_weights.assign(c.layers * c.heads, {});
    return cache;
}

std::vector<float> next_logits(const Gpt<float>& m, GptCache& cache, std::size_t token) {
    const GptConfig& c = m.config;
    if (cache.length >= c.context) throw InputError(describe("the KV cache holds its whole context of ", c.context, " positions"));
    if (token >= c.vocab) throw InputError(describe("token ", token, " outside the vocabulary of ", c.vocab));
    const std::size_t d = c.d_model;
    Mat<float> x = Mat<float>::from_shape({1, d});
    for (std::size_t j = 0; j < d; ++j) x(0, j) = has_wpe(c) ? m.wte(token, j) + m.wpe(cache.length, j) : m.wte(token, j);
    for (std::size_t l = 0; l < c.layers; ++l) block_step(m.h[l], c, cache, l, x);
    ++cache.length;
    Mat<float> y, stats;
    layer_norm(x, m.ln_f_weight, m.ln_f_bias, y, stats);
    std::vector<float> logits(c.vocab);
    for (std::size_t v = 0; v < c.vocab; ++v) logits[v] = dot(y.data(), m.wte.data() + v * d, d);  // the output layer is wte
    return logits;
}

std::size_t cached_floats(const GptCache& cache, std::size_t layer) {
    std::size_t total = 0;
    for (const auto* part : {&cache.keys[layer], &cache.values[layer], &cache.states[layer]})
        for (const std::vector<float>& v : *part) total += v.size();
    return total;
}
