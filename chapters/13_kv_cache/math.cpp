#include "chapters/13_kv_cache/math.hpp"

#include <algorithm>
#include <cmath>

#include "common/numbers/input_error.hpp"
#include "common/numbers/matmul.hpp"

Matrix first_rows(const Matrix& m, std::size_t count) {
    Matrix rows_ = Matrix::from_shape({count, cols(m)});
    for (std::size_t i = 0; i < count; ++i)
        for (std::size_t d = 0; d < cols(m); ++d) rows_(i, d) = m(i, d);
    return rows_;
}

TokenQKV project_token(const Matrix& X, std::size_t t, const Projections& W) {
    Matrix x = Matrix::from_shape({1, cols(X)});  // (1 × d_model) row t
    for (std::size_t d = 0; d < cols(X); ++d) x(0, d) = X(t, d);
    return {matmul(x, W.W_Q), matmul(x, W.W_K), matmul(x, W.W_V)};
}

// Row 0 of x (1 × d) becomes row `row` of m (· × d).
static void put_row(Matrix& m, std::size_t row, const Matrix& x) {
    for (std::size_t d = 0; d < cols(x); ++d) m(row, d) = x(0, d);
}

KVCache empty_cache(std::size_t capacity, std::size_t d_k, std::size_t d_v) {
    KVCache cache{Matrix::from_shape({capacity, d_k}), Matrix::from_shape({capacity, d_v}), 0};
    cache.K.fill(0.0f);
    cache.V.fill(0.0f);
    return cache;
}

// q (1 × d_k) over rows [0, length) of K (· × d_k) and V (· × d_v).
static Strip attend(const Matrix& q, const KVCache& cache) {
    const std::size_t t = cache.length, d_v = cols(cache.V);
    Strip s{Matrix::from_shape({1, t}), Matrix::from_shape({1, d_v})};
    // ┌ exercise decode-attend
    const std::size_t d_k = cols(q);
    // 1. one score per cached key, scaled, and their maximum
    float largest = -std::numeric_limits<float>::infinity();
    for (std::size_t j = 0; j < t; ++j) {
        float dot = 0.0f;
        for (std::size_t d = 0; d < d_k; ++d) dot += q(0, d) * cache.K(j, d);
        s.weights(0, j) = dot / std::sqrt(float(d_k));
        largest = std::max(largest, s.weights(0, j));
    }
    // 2. softmax: exp(s − max), then divide by the sum
    float sum = 0.0f;
    for (std::size_t j = 0; j < t; ++j) sum += (s.weights(0, j) = std::exp(s.weights(0, j) - largest));
    for (std::size_t j = 0; j < t; ++j) s.weights(0, j) /= sum;
    // 3. the weighted sum of the cached values
    s.output.fill(0.0f);
    for (std::size_t j = 0; j < t; ++j)
        for (std::size_t d = 0; d < d_v; ++d) s.output(0, d) += s.weights(0, j) * cache.V(j, d);
    // └ stub: s.weights.fill(0.0f); s.output.fill(0.0f);
    return s;
}

Strip decode_step(KVCache& cache, const TokenQKV& token) {
    // ┌ exercise decode-append
    put_row(cache.K, cache.length, token.k);  // (1 × d_k) → row `length`
    put_row(cache.V, cache.length, token.v);  // (1 × d_v)
    ++cache.length;
    // └ stub: ++cache.length;
    return attend(token.q, cache);  // every cached row is in the past or is the token itself
}

// The prompt's rows [0, p) of X, projected at once, attending under `mask`.
static MaskedAttentionSteps prompt_attention(const Matrix& X, const Projections& W, std::size_t p,
                                             const Matrix& mask, Matrix& K_p, Matrix& V_p) {
    const Matrix X_p = first_rows(X, p);  // (p × d_model)
    K_p = matmul(X_p, W.W_K), V_p = matmul(X_p, W.W_V);
    return masked_attention(matmul(X_p, W.W_Q), K_p, V_p, mask);
}

std::vector<std::size_t> keys_tied_for_most(const Matrix& strip, int decimals) {
    const double unit = std::pow(10.0, decimals);
    const auto rounded = [&](std::size_t j) { return std::round(double(strip(0, j)) * unit); };
    double most = rounded(0);
    for (std::size_t j = 1; j < cols(strip); ++j) most = std::max(most, rounded(j));
    std::vector<std::size_t> tied;
    for (std::size_t j = 0; j < cols(strip); ++j)
        if (rounded(j) == most) tied.push_back(j);
    return tied;
}

Decoding decode_with_cache(const Matrix& X, const Projections& W, std::size_t prefill) {
    const std::size_t n = rows(X), d_v = cols(W.W_V);
    Decoding r;
    r.prefill = prefill;
    r.cache = empty_cache(n, cols(W.W_K), d_v);
    r.weights = Matrix::from_shape({n, n});
    r.weights.fill(0.0f);
    r.output = Matrix::from_shape({n, d_v});
    // pass 1: prefill, the prompt at once with the causal mask; its K and V fill the cache
    Matrix K_p, V_p;
    if (prefill > 0) r.prompt = prompt_attention(X, W, prefill, causal_mask(prefill), K_p, V_p);
    for (std::size_t i = 0; i < prefill; ++i) {
        for (std::size_t d = 0; d < cols(K_p); ++d) r.cache.K(i, d) = K_p(i, d);
        for (std::size_t d = 0; d < d_v; ++d) r.cache.V(i, d) = V_p(i, d), r.output(i, d) = r.prompt.output(i, d);
        for (std::size_t j = 0; j <= i; ++j) r.weights(i, j) = r.prompt.weights(i, j);
    }
    r.cache.length = prefill;
    // pass 2: one decode step per token, (1 × d_model) in, (1 × d_v) out
    for (std::size_t t = prefill; t < n; ++t) {
        r.tokens.push_back(project_token(X, t, W));
        r.strips.push_back(decode_step(r.cache, r.tokens.back()));
        for (std::size_t j = 0; j <= t; ++j) r.weights(t, j) = r.strips.back().weights(0, j);
        for (std::size_t d = 0; d < d_v; ++d) r.output(t, d) = r.strips.back().output(0, d);
    }
    return r;
}

Matrix band_mask(std::size_t n, std::size_t w) {
    Matrix mask = Matrix::from_shape({n, n});
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) mask(i, j) = j <= i && i - j < w ? 1.0f : 0.0f;
    return mask;
}

WindowDecoding decode_with_window(const Matrix& X, const Projections& W, std::size_t prefill, std::size_t w) {
    const std::size_t n = rows(X), d_v = cols(W.W_V);
    WindowDecoding r;
    r.window = w;
    r.buffer = empty_cache(w, cols(W.W_K), d_v);
    r.token_in_slot.assign(w, empty_slot);
    r.weights = Matrix::from_shape({n, n});
    r.weights.fill(0.0f);
    r.output = Matrix::from_shape({n, d_v});
    // pass 1: the prompt at once under the band mask; its last min(p, w) tokens fill their slots
    Matrix K_p, V_p;
    r.band = band_mask(prefill, w);
    if (prefill > 0) r.prompt = prompt_attention(X, W, prefill, r.band, K_p, V_p);
    for (std::size_t i = 0; i < prefill; ++i) {
        const std::size_t slot = i % w;
        for (std::size_t d = 0; d < cols(K_p); ++d) r.buffer.K(slot, d) = K_p(i, d);
        for (std::size_t d = 0; d < d_v; ++d) r.buffer.V(slot, d) = V_p(i, d), r.output(i, d) = r.prompt.output(i, d);
        for (std::size_t j = 0; j <= i; ++j) r.weights(i, j) = r.prompt.weights(i, j);
        r.token_in_slot[slot] = i;
    }
    r.buffer.length = std::min(prefill, w);
    r.most_rows = r.buffer.length;
    // pass 2: token t overwrites slot t mod w (token t − w, now out of every later window)
    for (std::size_t t = prefill; t < n; ++t) {
        const TokenQKV token = project_token(X, t, W);
        const std::size_t slot = t % w, filled = std::min(t + 1, w);
        put_row(r.buffer.K, slot, token.k);
        put_row(r.buffer.V, slot, token.v);
        r.buffer.length = filled;
        r.token_in_slot[slot] = t;
        const Strip s = attend(token.q, r.buffer);  // every filled slot: the last min(t + 1, w) tokens
        for (std::size_t j = 0; j < filled; ++j) r.weights(t, r.token_in_slot[j]) = s.weights(0, j);
        for (std::size_t d = 0; d < d_v; ++d) r.output(t, d) = s.output(0, d);
        r.history.push_back(r.token_in_slot);
        r.most_rows = std::max(r.most_rows, filled);
    }
    return r;
}

FullAttention full_attention(const Matrix& X, const Projections& W, std::size_t w) {
    FullAttention r{matmul(X, W.W_Q), matmul(X, W.W_K), matmul(X, W.W_V), {}, {}};
    r.causal = masked_attention(r.Q, r.K, r.V, causal_mask(rows(X)));
    r.windowed = masked_attention(r.Q, r.K, r.V, band_mask(rows(X), w));
    return r;
}

std::vector<std::size_t> steps_in_full(std::size_t count) {
    std::vector<std::size_t> steps;
    for (std::size_t step = 0; step < count; ++step)
        if (count <= 4 || step < 2 || step + 2 >= count) steps.push_back(step);
    return steps;
}

CachedDecoding cached_decoding(const Matrix& X, const Projections& W, std::size_t prefill, std::size_t window) {
    CachedDecoding r;
    r.W = W;
    r.dec = decode_with_cache(X, W, prefill);
    r.win = decode_with_window(X, W, prefill, window);
    r.full = full_attention(X, W, window);
    r.K_prefill = first_rows(r.dec.cache.K, prefill);  // rows [0, p) never change after the prefill
    r.V_prefill = first_rows(r.dec.cache.V, prefill);
    for (const std::size_t step : steps_in_full(r.dec.strips.size())) {
        const std::size_t t = prefill + step;
        r.in_full.push_back({t, step, first_rows(r.dec.cache.K, t + 1), first_rows(r.dec.cache.V, t + 1)});
    }
    r.band = band_mask(rows(X), window);
    r.window_K = first_rows(r.win.buffer.K, r.win.buffer.length);
    r.window_V = first_rows(r.win.buffer.V, r.win.buffer.length);
    return r;
}

MatrixList CachedDecoding::matrices() const {
    MatrixList list = {{"W_Q", W.W_Q, "", "dimensions", "query dims"},
                       {"W_K", W.W_K, "", "dimensions", "key dims"},
                       {"W_V", W.W_V, "", "dimensions", "value dims"}};
    const auto add = [&list](const MatrixList& more) { list.insert(list.end(), more.begin(), more.end()); };
    if (dec.prefill > 0) {
        const std::string last = std::to_string(dec.prefill - 1);
        add({{"prefill_weights", dec.prompt.weights, "softmax(Q · Kᵀ / √d_k), causal", "prompt", "prompt",
              MatrixKind::attention_weights},
             {"prefill_output", dec.prompt.output, "prefill_weights · V", "prompt", "value dims"},
             {"K_cache_" + last, K_prefill, "after the prefill", "prompt", "key dims"},
             {"V_cache_" + last, V_prefill, "after the prefill", "prompt", "value dims"}});
    }
    for (const StepInFull& s : in_full) {
        const std::string t = std::to_string(s.t), token = "token " + t, seen = "tokens to " + t;
        const TokenQKV& qkv = dec.tokens[s.step];
        const Strip& strip = dec.strips[s.step];
        add({{"q_new_" + t, qkv.q, "x · W_Q", token, "query dims"},
             {"k_new_" + t, qkv.k, "x · W_K", token, "key dims"},
             {"v_new_" + t, qkv.v, "x · W_V", token, "value dims"},
             {"K_cache_" + t, s.K_cache, "+ k_new_" + t + " as row " + t, seen, "key dims"},
             {"V_cache_" + t, s.V_cache, "+ v_new_" + t + " as row " + t, seen, "value dims"},
             {"strip_" + t, strip.weights, "softmax(q_new_" + t + " · K_cache_" + t + "ᵀ / √d_k)", token, seen,
              MatrixKind::attention_weights},
             {"output_new_" + t, strip.output, "strip_" + t + " · V_cache_" + t, token, "value dims"}});
    }
    add({{"cached_weights", dec.weights, "prefill rows, then one strip per step", "tokens", "tokens",
          MatrixKind::attention_weights},
         {"output_cached", dec.output, "each token's output, step by step", "tokens", "value dims"},
         {"output_full", full.causal.output, "masked_attention(X·W_Q, X·W_K, X·W_V, causal)", "tokens", "value dims"},
         {"K_cache", dec.cache.K, "after the last step", "tokens", "key dims"},
         {"V_cache", dec.cache.V, "after the last step", "tokens", "value dims"},
         {"full_weights", full.causal.weights, "softmax(Q · Kᵀ / √d_k), causal", "tokens", "tokens",
          MatrixKind::attention_weights},
         {"band_mask", band, "1 where max(0, i−w+1) ≤ j ≤ i", "tokens", "tokens", MatrixKind::mask},
         {"window_K_cache", window_K, "slot: token", "slots", "key dims"},
         {"window_V_cache", window_V, "slot: token", "slots", "value dims"},
         {"window_weights", win.weights, "row t: the strip of token t, by position", "tokens", "tokens",
          MatrixKind::attention_weights},
         {"output_window_cached", win.output, "windowed, step by step", "tokens", "value dims"},
         {"output_window_full", full.windowed.output, "masked_attention(…, band_mask)", "tokens", "value dims"}});
    return list;
}

std::vector<TokenCost> token_costs(const std::vector<std::size_t>& lengths, std::size_t d_model, std::size_t d_k,
                                   std::size_t d_v) {
    std::vector<TokenCost> costs;
    for (const std::size_t n : lengths) costs.push_back(token_cost(n, d_model, d_k, d_v));
    return costs;
}

TokenCost token_cost(std::size_t n, std::size_t d_model, std::size_t d_k, std::size_t d_v) {
    TokenCost c;
    c.n = n;
    const double project_one = 2.0 * double(d_model) * double(2 * d_k + d_v);  // q, k, v of one token
    const double weights = double(d_model) * double(2 * d_k + d_v);            // floats of W_Q, W_K, W_V
    // with the cache: one token's projections, then one query over the n cached rows
    c.flops_projections = project_one;
    c.flops_cached = project_one + 2.0 * double(n) * double(d_k + d_v);
    c.bytes_cached = 4.0 * (weights + double(d_model) + double(n) * double(d_k + d_v));
    // recomputing: every token's projections, then each query i over its i keys and values
    c.flops_recomputed = double(n) * project_one;
    c.bytes_recomputed = 4.0 * (weights + double(n) * double(d_model));
    for (std::size_t i = 1; i <= n; ++i) {
        c.flops_recomputed += 2.0 * double(i) * double(d_k + d_v);
        c.bytes_recomputed += 4.0 * double(i) * double(d_k + d_v);
    }
    return c;
}

ModelShape model_shape(const Matrix& table, std::size_t row) {
    std::uint64_t v[7];
    for (std::size_t c = 0; c < 7; ++c) {
        const float x = table(row, c);
        if (!(x >= (c == 6 ? 0.0f : 1.0f)) || x != std::floor(x) || x > 1e6f)
            throw InputError(describe("model ", row, ", column ", c + 1, ": ", x, " is not a whole number of at least ",
                                      c == 6 ? 0 : 1));
        v[c] = std::uint64_t(x);
    }
    return {v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
}

std::uint64_t cache_bytes(const ModelShape& m, std::uint64_t tokens, std::uint64_t bytes_per_number) {
    const std::uint64_t kept = m.window > 0 ? std::min(tokens, m.window) : tokens;
    std::uint64_t total = 0;
    for (std::uint64_t layer = 0; layer < m.layers; ++layer) {
        const std::uint64_t one_tensor = m.kv_heads * kept * m.head_width * bytes_per_number;
        total += one_tensor + one_tensor;  // this layer's K and its V, (kv_heads × kept × head_width) each
    }
    return total;
}

std::vector<ModelCache> model_caches(const Matrix& table, std::uint64_t tokens, std::uint64_t bytes_per_number) {
    std::vector<ModelCache> models;
    for (std::size_t row = 0; row < rows(table); ++row) {
        const ModelShape m = model_shape(table, row);
        models.push_back({m, cache_bytes(m, 1, bytes_per_number), cache_bytes(m, tokens, bytes_per_number),
                          cache_bytes(m, m.context, bytes_per_number)});
    }
    return models;
}
