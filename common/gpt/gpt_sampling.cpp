// Sampling from a GPT through a KV cache (gpt_sampling.hpp gives the formulas).
#include "common/gpt/gpt_sampling.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <xtensor/xbuilder.hpp>

#include "common/gpt/gpt_attention.hpp"
#include "common/gpt/gpt_layers.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/random.hpp"

using namespace gpt_layers;

namespace {

// One block for one new token: x (1 × d) updated in place, its key and value cached.
void block_step(const GptBlock<float>& b, std::size_t heads, std::vector<std::vector<float>>& keys,
                std::vector<std::vector<float>>& values, Mat<float>& x) {
    const std::size_t d = x.shape(1), dh = d / heads;
    Mat<float> a, stats, qkv;
    layer_norm(x, b.ln_1_weight, b.ln_1_bias, a, stats);
    linear(a, b.c_attn_weight, b.c_attn_bias, qkv);  // (1 × 3d)
    Mat<float> z = xt::zeros<float>({std::size_t{1}, d});  // each head adds its values into its columns
    const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
    for (std::size_t h = 0; h < heads; ++h) {
        // 1. cache this position's key and value of head h
        keys[h].insert(keys[h].end(), qkv.data() + d + h * dh, qkv.data() + d + (h + 1) * dh);
        values[h].insert(values[h].end(), qkv.data() + 2 * d + h * dh, qkv.data() + 2 * d + (h + 1) * dh);
        const std::size_t n = keys[h].size() / dh;
        // 2. scores s_j = q · k_j / √d_h over every cached key, then a stable softmax
        const float* q = qkv.data() + h * dh;
        std::vector<float> w(n);
        for (std::size_t j = 0; j < n; ++j) {
            float s = 0.0f;
            for (std::size_t c = 0; c < dh; ++c) s += q[c] * keys[h][j * dh + c];
            w[j] = s * scale;
        }
        const float top = *std::max_element(w.begin(), w.end());
        float total = 0.0f;
        for (float& wj : w) total += (wj = std::exp(wj - top));
        // 3. z_h = Σ_j w_j v_j
        for (std::size_t j = 0; j < n; ++j)
            for (std::size_t c = 0; c < dh; ++c) z(0, h * dh + c) += (w[j] / total) * values[h][j * dh + c];
    }
    Mat<float> out;
    linear(z, b.attn_proj_weight, b.attn_proj_bias, out);
    add_into(x, out);
    Mat<float> u, g;
    layer_norm(x, b.ln_2_weight, b.ln_2_bias, a, stats);
    linear(a, b.c_fc_weight, b.c_fc_bias, u);
    gelu(u, g);
    linear(g, b.mlp_proj_weight, b.mlp_proj_bias, out);
    add_into(x, out);
}

// The indices of the k largest logits (all when k is 0 or ≥ V), largest first, ties to the smaller id.
std::vector<std::size_t> top_indices(const std::vector<float>& logits, std::size_t k) {
    std::vector<std::size_t> order(logits.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return logits[a] > logits[b]; });
    if (k != 0 && k < order.size()) order.resize(k);
    return order;
}

}  // namespace

GptCache empty_cache(const GptConfig& c) {
    if (!attention_text(c.attention).empty())  // the cache below is MHA's: one key and value per head
        throw InputError("the KV cache decodes chapter 22's multi-head attention only, not " + attention_text(c.attention));
    GptCache cache;
    cache.keys.assign(c.layers, std::vector<std::vector<float>>(c.heads));
    cache.values = cache.keys;
    return cache;
}

std::vector<float> next_logits(const Gpt<float>& m, GptCache& cache, std::size_t token) {
    const GptConfig& c = m.config;
    if (cache.length >= c.context) throw InputError(describe("the KV cache holds its whole context of ", c.context, " positions"));
    if (token >= c.vocab) throw InputError(describe("token ", token, " outside the vocabulary of ", c.vocab));
    const std::size_t d = c.d_model;
    Mat<float> x = Mat<float>::from_shape({1, d});
    for (std::size_t j = 0; j < d; ++j) x(0, j) = m.wte(token, j) + m.wpe(cache.length, j);
    for (std::size_t l = 0; l < c.layers; ++l) block_step(m.h[l], c.heads, cache.keys[l], cache.values[l], x);
    ++cache.length;
    Mat<float> y, stats;
    layer_norm(x, m.ln_f_weight, m.ln_f_bias, y, stats);
    std::vector<float> logits(c.vocab);
    for (std::size_t v = 0; v < c.vocab; ++v) {  // the output layer is wte: logit_v = y · wte_v
        float s = 0.0f;
        for (std::size_t j = 0; j < d; ++j) s += y(0, j) * m.wte(v, j);
        logits[v] = s;
    }
    return logits;
}

std::vector<double> sampling_probabilities(const std::vector<float>& logits, double temperature, std::size_t top_k) {
    if (!(temperature > 0.0)) throw InputError(describe("a temperature of ", temperature, ": it must be above 0"));
    const std::vector<std::size_t> kept = top_indices(logits, top_k);
    std::vector<double> p(logits.size(), 0.0);
    double total = 0.0;
    for (const std::size_t j : kept) total += (p[j] = std::exp((double(logits[j]) - double(logits[kept[0]])) / temperature));
    for (const std::size_t j : kept) p[j] /= total;
    return p;
}

std::size_t sample_token(const std::vector<float>& logits, double temperature, std::size_t top_k, double uniform) {
    const std::vector<double> p = sampling_probabilities(logits, temperature, top_k);
    const std::vector<std::size_t> kept = top_indices(logits, top_k);
    double running = 0.0;
    for (const std::size_t j : kept)  // largest first: a draw near 1 that rounding leaves unclaimed takes the last
        if (uniform < (running += p[j])) return j;
    return kept.back();
}

std::vector<std::size_t> generate(const Gpt<float>& m, const Tokens& prompt, std::size_t count, double temperature,
                                  std::size_t top_k, std::uint64_t seed) {
    if (prompt.empty()) throw InputError("an empty prompt: give at least one token");
    const std::size_t T = m.config.context;
    Tokens text = prompt;
    Random rng(seed);
    GptCache cache = empty_cache(m.config);
    std::vector<float> logits;
    auto prime = [&](std::size_t from) {  // a fresh cache over text[from …]
        cache = empty_cache(m.config);
        for (std::size_t i = from; i < text.size(); ++i) logits = next_logits(m, cache, text[i]);
    };
    prime(text.size() > T ? text.size() - T : 0);
    for (std::size_t i = 0; i < count; ++i) {
        text.push_back(sample_token(logits, temperature, top_k, rng.uniform()));
        if (cache.length == T) prime(text.size() - std::max<std::size_t>(1, T / 2));
        else logits = next_logits(m, cache, text.back());
    }
    return Tokens(text.begin() + static_cast<std::ptrdiff_t>(prompt.size()), text.end());
}
