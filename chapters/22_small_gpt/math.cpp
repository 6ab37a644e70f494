// Chapter 22 · the mathematics of reading a sentence with the trained GPT (math.hpp): its
// forward pass written plainly, then the predictions and where each head looks.
#include "chapters/22_small_gpt/math.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include <xtensor/xview.hpp>

#include "common/attention/softmax.hpp"
#include "common/gpt/gpt_decoding.hpp"
#include "common/gpt/gpt_sampling.hpp"
#include "common/block/layer_norm.hpp"
#include "common/numbers/matmul.hpp"
#include "common/numbers/random.hpp"

Matrix embed(const Gpt<float>& m, const Tokens& ids) {
    const std::size_t n = ids.size(), d = m.config.d_model;
    Matrix x = Matrix::from_shape({n, d});
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < d; ++j) x(i, j) = m.wte(ids[i], j) + m.wpe(i, j);  // token i, at position i
    return x;
}

Matrix layer_norm_rows(const Matrix& x, const Matrix& gamma, const Matrix& beta) {
    return normalise_rows(x) * gamma + beta;  // (1 × d) γ and β broadcast down the rows
}

Matrix linear_layer(const Matrix& x, const Matrix& W, const Matrix& b) {
    return matmul_transposed(x, W) + b;  // (n × in) · (out × in)ᵀ + (1 × out)
}

Matrix head_weights(const Matrix& q, const Matrix& k) {
    const std::size_t n = rows(q);
    Matrix scores = matmul_transposed(q, k) / std::sqrt(static_cast<float>(cols(q)));  // (n × n)
    // ┌ exercise causal-mask
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) scores(i, j) = -std::numeric_limits<float>::infinity();
    // └ stub: (void)n;
    return softmax_rows(scores);
}

Matrix gelu_exact(const Matrix& z) {
    Matrix y = Matrix::from_shape(z.shape());
    // ┌ exercise exact-gelu
    for (std::size_t i = 0; i < z.size(); ++i) y.flat(i) = float(0.5 * z.flat(i) * (1.0 + std::erf(z.flat(i) / std::sqrt(2.0))));
    // └ stub: y = z;
    return y;
}

Matrix output_logits(const Gpt<float>& m, const Matrix& x) {
    return matmul_transposed(layer_norm_rows(x, m.ln_f_weight, m.ln_f_bias), m.wte);  // (n × d) · (V × d)ᵀ
}

void most_likely(const float* logits, std::size_t V, std::size_t k, std::vector<std::size_t>& ids,
                 std::vector<double>& probabilities) {
    // ┌ exercise five-most-likely
    // 1. p_j = exp(ℓ_j − max ℓ) / Σ_i exp(ℓ_i − max ℓ), in double
    const double top = *std::max_element(logits, logits + V);
    std::vector<double> p(V);
    double total = 0.0;
    for (std::size_t j = 0; j < V; ++j) total += (p[j] = std::exp(double(logits[j]) - top));
    for (double& pj : p) pj /= total;
    // 2. the k largest, largest first; a tie keeps the smaller id first
    std::vector<std::size_t> order(V);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
    order.resize(std::min(k, V));
    ids = order;
    probabilities.clear();
    for (const std::size_t j : order) probabilities.push_back(p[j]);
    // └ stub: (void)logits; ids.assign(std::min(k, V), 0); probabilities.assign(std::min(k, V), 0.0);
}

SentenceRead read_sentence(const Gpt<float>& model, const Tokens& ids) {
    SentenceRead r;
    const GptConfig& c = model.config;
    const std::size_t n = ids.size(), V = c.vocab, d = c.d_model, H = c.heads, dh = d / H;
    const std::size_t k = std::min(predictions_shown, V);
    r.ids = ids, r.heads = H;
    r.token_ids = Matrix::from_shape({1, n});
    for (std::size_t i = 0; i < n; ++i) r.token_ids(0, i) = float(ids[i]);
    // 1. token and position embeddings
    r.embedded = embed(model, ids);
    Matrix x = r.embedded;  // (n × d) the residual stream
    for (const GptBlock<float>& block : model.h) {
        // 2a. causal self-attention, every head from one fused projection
        const Matrix qkv = linear_layer(layer_norm_rows(x, block.ln_1_weight, block.ln_1_bias), block.c_attn_weight,
                                        block.c_attn_bias);  // (n × 3d)
        Matrix heads = Matrix::from_shape({n, d});           // [z_0 … z_{H−1}]
        for (std::size_t h = 0; h < H; ++h) {
            const auto columns = [&](std::size_t from) { return Matrix(xt::view(qkv, xt::all(), xt::range(from, from + dh))); };
            r.queries.push_back(columns(h * dh));
            r.keys.push_back(columns(d + h * dh));
            r.values.push_back(columns(2 * d + h * dh));
            r.weights.push_back(head_weights(r.queries.back(), r.keys.back()));
            xt::view(heads, xt::all(), xt::range(h * dh, (h + 1) * dh)) = matmul(r.weights.back(), r.values.back());
        }
        x += linear_layer(heads, block.attn_proj_weight, block.attn_proj_bias);
        // 2b. the MLP, token by token
        const Matrix hidden = gelu_exact(
            linear_layer(layer_norm_rows(x, block.ln_2_weight, block.ln_2_bias), block.c_fc_weight, block.c_fc_bias));
        x += linear_layer(hidden, block.mlp_proj_weight, block.mlp_proj_bias);
    }
    // 3. the logits, through the tied output layer
    r.logits = output_logits(model, x);
    // 4. after each token, the five most likely next tokens
    r.top_ids = Matrix::from_shape({n, k});
    r.top_probabilities = Matrix::from_shape({n, k});
    std::vector<std::size_t> best;
    std::vector<double> p;
    for (std::size_t i = 0; i < n; ++i) {
        most_likely(r.logits.data() + i * V, V, k, best, p);
        for (std::size_t j = 0; j < k; ++j) r.top_ids(i, j) = float(best[j]), r.top_probabilities(i, j) = float(p[j]);
    }
    // 5. where each head looks most from each query
    r.looks_most = Matrix::from_shape({r.weights.size(), n});
    for (std::size_t m = 0; m < r.weights.size(); ++m)
        for (std::size_t i = 0; i < n; ++i) {
            const float* row = r.weights[m].data() + i * n;
            r.looks_most(m, i) = float(std::max_element(row, row + i + 1) - row);
        }
    return r;
}

MatrixList SentenceRead::matrices() const {
    MatrixList list{{"token_ids", token_ids, "the sentence's tokens", "", "tokens", MatrixKind::indices},
                    {"embedded", embedded, "wte[ids] + wpe[0 … n−1]", "tokens", ""},
                    {"logits", logits, "LN(x; ln_f) · wteᵀ", "tokens", ""}};
    list_heads(list, weights, heads, "weights", "softmax(causal(q_h k_hᵀ / √d_h))", "tokens");
    list.push_back({"top_ids", top_ids, "the five largest of softmax(logits_i)", "tokens", "", MatrixKind::indices});
    list.push_back({"top_probabilities", top_probabilities, "their probabilities", "tokens", ""});
    list.push_back({"looks_most", looks_most, "argmax_j A_lh[i, j]", "heads", "tokens", MatrixKind::indices});
    return list;
}

Writing write_tokens(const Gpt<float>& model, const Tokens& prompt, std::size_t count, double temperature,
                     std::size_t top_k, double top_p, std::uint64_t seed) {
    const std::size_t V = model.config.vocab, L = model.config.layers, H = model.config.heads;
    Writing w;
    w.prompt = prompt;
    w.candidates = Matrix(xt::zeros<float>({count, predictions_shown}));
    w.model_odds = w.candidates, w.drawn_odds = w.candidates;
    w.draws = Matrix(xt::zeros<float>({count, std::size_t(1)}));
    w.written_odds = Matrix(xt::zeros<float>({count, std::size_t(2)}));
    w.heads = H;
    w.attention.assign(L * H, Matrix(xt::zeros<float>({count, prompt.size() + count})));
    // 1. the prompt into the cache
    GptCache cache = empty_cache(model.config);
    std::vector<float> logits;
    for (const std::size_t id : prompt) logits = next_logits(model, cache, id);
    Random rng(seed);
    for (std::size_t t = 0; t < count; ++t) {
        // 2. the odds: the model's, and as drawn; the five largest logits
        const std::vector<double> p = sampling_probabilities(logits, 1.0, 0), q = sampling_probabilities(logits, temperature, top_k, top_p);
        std::vector<std::size_t> ids;
        std::vector<double> unused;
        most_likely(logits.data(), V, predictions_shown, ids, unused);
        for (std::size_t c = 0; c < ids.size(); ++c)
            w.candidates(t, c) = float(ids[c]), w.model_odds(t, c) = float(p[ids[c]]), w.drawn_odds(t, c) = float(q[ids[c]]);
        // 3. the draw, and the token read into the cache: its attention over every token so far
        const double uniform = rng.uniform();
        w.draws(t, 0) = float(uniform);
        w.logits.push_back(logits);
        w.written.push_back(sample_token(logits, temperature, top_k, uniform, top_p));
        w.written_odds(t, 0) = float(p[w.written.back()]), w.written_odds(t, 1) = float(q[w.written.back()]);
        logits = next_logits(model, cache, w.written.back());
        for (std::size_t k = 0; k < L * H; ++k) {
            const std::vector<float>& a = cache.newest_weights[k];  // over the P + t + 1 keys
            for (std::size_t j = 0; j < a.size(); ++j) w.attention[k](t, j) = a[j];
        }
    }
    w.written_ids = Matrix(xt::zeros<float>({std::size_t(1), count}));
    for (std::size_t t = 0; t < count; ++t) w.written_ids(0, t) = float(w.written[t]);
    return w;
}

MatrixList Writing::matrices() const {
    MatrixList list{{"written_ids", written_ids, "the tokens drawn one at a time", "", "written", MatrixKind::indices},
            {"candidates", candidates, "before each: the five largest logits' ids", "written", "", MatrixKind::indices},
            {"model_odds", model_odds, "their p = softmax(logits)", "written", ""},
            {"drawn_odds", drawn_odds, "their q: softmax(logits / τ) over the top k, within the top p", "written", ""},
            {"draws", draws, "the uniform number of each draw", "written", ""},
            {"written_odds", written_odds, "the written token's p and q", "written", ""}};
    list_heads(list, attention, heads, "writing", "softmax(q_t K_hᵀ / √d_h), from the cache", "written", "text");
    return list;
}
