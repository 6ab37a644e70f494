#include "chapters/24_which_attention/math.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <xtensor/xbuilder.hpp>

#include "common/gpt/gpt_attention.hpp"
#include "common/gpt/gpt_sampling.hpp"
#include "common/learning/cross_entropy.hpp"
#include "common/token_mixers/token_mixers.hpp"

namespace {

constexpr std::size_t windows_per_pass = 32;  // windows through the model at once

// The loss of every position of the sequences (B·n), each row's −log softmax(logits)[target].
std::vector<double> position_losses(const Gpt<float>& model, const std::vector<Tokens>& inputs,
                                    const std::vector<Tokens>& targets) {
    const GptForward<float> f = gpt_forward(model, inputs);
    const std::size_t n = inputs[0].size();
    std::vector<double> losses(inputs.size() * n);
    for (std::size_t r = 0; r < losses.size(); ++r) losses[r] = token_loss(f.logits, r, targets[r / n][r % n]);
    return losses;
}

// Sequence k of `count`, spread evenly over the `all` stretches of `length` tokens of the ids.
std::ptrdiff_t spread_start(std::size_t k, std::size_t count, std::size_t all, std::size_t length) {
    return std::ptrdiff_t(k * all / count * length);
}

}  // namespace

std::size_t window_of(const GptConfig& c) { return std::max<std::size_t>(1, c.context / 4); }

std::size_t latent_width(const GptConfig& c) { return 4 * (c.d_model / c.heads); }

std::vector<VariantChoice> variant_choices(const GptConfig& c) {
    const std::size_t H = c.heads, dh = c.d_model / H, w = window_of(c);
    std::vector<VariantChoice> v{{"MHA", "7, 22", {}, "mha"}, {"MQA", "15", {Mixer::softmax, 1, 0, 0, false, false}, "mqa"}};
    if (H % 2 == 0 && H / 2 > 1) v.push_back({"GQA", "15", {Mixer::softmax, H / 2, 0, 0, false, false}, "gqa"});
    if (dh % 4 == 0) v.push_back({"MLA", "18", {Mixer::softmax, 0, 0, 0, false, false, latent_width(c)}, "mla"});
    if (dh % 2 == 0) v.push_back({"RoPE", "14", {Mixer::softmax, 0, 0, 0, false, true}, "rope"});
    v.push_back({"sliding window", "20", {Mixer::softmax, 0, w, 0, false, false}, "window"});
    v.push_back({"window + sinks", "20", {Mixer::softmax, 0, w, sinks_kept, false, false}, "window-sinks"});
    v.push_back({"sink logit", "20", {Mixer::softmax, 0, 0, 0, true, false}, "sink-logit"});
    v.push_back({"top-k", "20", {Mixer::softmax, 0, 0, 0, false, false, 0, w}, "top-k"});
    v.push_back({"linear", "19", {Mixer::linear, 0, 0, 0, false, false}, "linear"});
    v.push_back({"DeltaNet", "19", {Mixer::delta, 0, 0, 0, false, false}, "deltanet"});
    v.push_back({"gated DeltaNet", "19", {Mixer::gated_delta, 0, 0, 0, false, false}, "gated-deltanet"});
    return v;
}

std::vector<std::string> variant_flags() {
    GptConfig every;  // 4 heads of a width that 4 divides: a shape that has every variant
    every.context = 8, every.heads = 4, every.d_model = 16;
    std::vector<std::string> flags;
    for (const VariantChoice& v : variant_choices(every)) flags.push_back(v.flag);
    return flags;
}

std::uint64_t kept_floats(const GptConfig& c) {
    const GptAttention& a = c.attention;
    const std::uint64_t H = c.heads, dh = c.d_model / c.heads, T = c.context;
    // ┌ exercise kept-floats
    if (a.mixer == Mixer::linear) return H * (dh * dh + dh);
    if (a.mixer == Mixer::delta || a.mixer == Mixer::gated_delta) return H * dh * dh;
    const std::uint64_t g = a.kv_heads == 0 ? H : a.kv_heads;
    const std::uint64_t keys = a.window == 0 ? T : std::min<std::uint64_t>(T, a.window + a.sinks);
    if (a.latent > 0) return keys * (a.latent + dh / 2);  // c_KV and the RoPE key
    return keys * 2 * g * dh;
    // └ stub: (void)a, (void)H, (void)dh, (void)T; return 0;
}

std::uint64_t kept_floats_seen(const Gpt<float>& model, const Tokens& window) {
    Gpt<float> every = model;  // top-k keeps every key it may choose from: the keys it sees
    every.config.attention.top_k = 0;
    const GptForward<float> f = gpt_forward(every, {window});
    const GptBlockForward<float>& b = f.blocks[0];
    const std::uint64_t d = model.config.d_model, n = window.size();
    if (!b.states.empty()) return b.states.size() * b.states[0].shape(1);  // H heads of d_h × d_h
    if (!b.phi_k.empty()) {  // S = Σ φ(k) vᵀ (d_h × d_h) and z = Σ φ(k) (d_h), per head
        const std::uint64_t dk = b.phi_k[0].shape(1), dv = b.v[0].shape(1);
        return b.phi_k.size() * (dk * dv + dk);
    }
    std::uint64_t read = 0;  // the keys the last query reads: its weights that are not 0
    for (std::size_t j = 0; j < n; ++j) read += b.weights[0](n - 1, j) != 0.0f ? 1 : 0;
    if (b.latent.size() > 0)  // MLA: the latent c_KV, and the RoPE key (k's columns past v's)
        return read * (b.latent.shape(1) + b.k[0].shape(1) - b.v[0].shape(1));
    return read * (b.qkv.shape(1) - d);  // the key and value columns of [q k v]
}

Matrix measured_windows(const Tokens& held_out, std::size_t T, std::size_t windows) {
    const std::size_t all = (held_out.size() - 1) / T, W = std::min(all, windows);
    Matrix rows = xt::zeros<float>({W, T + 1});
    for (std::size_t w = 0; w < W; ++w) {
        const std::ptrdiff_t start = spread_start(w, W, all, T);
        for (std::size_t i = 0; i <= T; ++i) rows(w, i) = float(held_out[std::size_t(start) + i]);
    }
    return rows;
}

VariantMeasures measure_variant(const Gpt<float>& model, const Tokens& held_out, std::size_t windows,
                                std::size_t passages) {
    const std::size_t T = model.config.context, s = T / 2;
    VariantMeasures m;
    // 1. the held-out windows of T + 1 tokens, as held_out_loss takes them: each position's mean loss
    const Matrix rows = measured_windows(held_out, T, windows);
    const std::size_t W = rows.shape(0);
    std::vector<double> position(T, 0.0);
    double total = 0.0;
    for (std::size_t first = 0; first < W; first += windows_per_pass) {
        const std::size_t count = std::min(windows_per_pass, W - first);
        std::vector<Tokens> inputs(count, Tokens(T)), targets(count, Tokens(T));
        for (std::size_t b = 0; b < count; ++b)
            for (std::size_t i = 0; i < T; ++i)
                inputs[b][i] = std::size_t(rows(first + b, i)), targets[b][i] = std::size_t(rows(first + b, i + 1));
        const std::vector<double> losses = position_losses(model, inputs, targets);
        for (std::size_t r = 0; r < losses.size(); ++r) position[r % T] += losses[r], total += losses[r];
    }
    m.held_out = total / double(W * T);
    m.by_position = xt::zeros<float>({std::size_t(1), T});
    for (std::size_t i = 0; i < T; ++i) m.by_position(0, i) = float(position[i] / double(W));
    // 2. recall: passages of s tokens written twice; the loss on each copy
    const std::size_t stretches = held_out.size() / s, P = std::min(passages, stretches);
    std::vector<Tokens> inputs(P, Tokens(2 * s - 1)), targets(P, Tokens(2 * s - 1));
    for (std::size_t p = 0; p < P; ++p) {
        const std::ptrdiff_t start = spread_start(p, P, stretches, s);
        for (std::size_t i = 0; i < 2 * s; ++i) {
            const std::size_t token = held_out[std::size_t(start) + i % s];
            if (i + 1 < 2 * s) inputs[p][i] = token;
            if (i > 0) targets[p][i - 1] = token;
        }
    }
    const std::vector<double> losses = position_losses(model, inputs, targets);
    double first = 0.0, second = 0.0;
    for (std::size_t r = 0; r < losses.size(); ++r) {
        const std::size_t i = r % (2 * s - 1);  // position i predicts token i + 1 of the pair
        if (i + 1 < s) first += losses[r];
        else if (i >= s) second += losses[r];
    }
    m.first_copy = first / double(P * (s - 1)), m.second_copy = second / double(P * (s - 1));
    return m;
}

double passages_alone(const Gpt<float>& model, const Tokens& held_out, std::size_t passages) {
    const std::size_t s = model.config.context / 2, stretches = held_out.size() / s, P = std::min(passages, stretches);
    double total = 0.0;
    for (std::size_t p = 0; p < P; ++p) {
        const auto start = held_out.begin() + spread_start(p, P, stretches, s);
        const std::vector<double> losses = position_losses(model, {Tokens(start, start + std::ptrdiff_t(s - 1))},
                                                           {Tokens(start + 1, start + std::ptrdiff_t(s))});
        for (double l : losses) total += l;
    }
    return total / double(P * (s - 1));
}

VariantReading read_with_variant(const Gpt<float>& model, const Tokens& ids) {
    const GptConfig& c = model.config;
    const std::size_t n = ids.size(), V = c.vocab, H = c.heads;
    const bool gated = c.attention.mixer == Mixer::gated_delta;
    VariantReading r;
    r.ids = ids, r.heads = H;
    r.formula = c.attention.latent > 0 ? "causal softmax([q | q_R] · [k | k_R]ᵀ / √(d_h + d_h/2))"
                : c.attention.sink_logit ? "causal softmax over [s_h, q kᵀ / √d_h], the sink's share left out"
                : c.attention.mixer == Mixer::softmax ? "causal softmax(q kᵀ / √d_h) over the keys the variant reads"
                : c.attention.mixer == Mixer::linear ? "φ(q) φ(k)ᵀ, each row divided by its sum"
                                                     : "the state unrolled: z_t = Σ_j M[t, j] v_j";
    // 1. the forward pass of the training, one sequence
    const GptForward<float> f = gpt_forward(model, {ids});
    double worst = 0.0;
    for (const GptBlockForward<float>& b : f.blocks)
        for (std::size_t h = 0; h < H; ++h) {
            // 2. each head's weights; the delta rules' state unrolled (the forward pass keeps only S_t)
            Matrix A = b.weights[h];
            if (A.size() == 0) {
                A = xt::zeros<float>({n, n});
                Matrix states = b.states[h], z = b.z[h];
                token_mixers::delta_rule(b.q[h], b.k[h], b.v[h], b.beta[h], gated ? &b.alpha[h] : nullptr, states, &A, z,
                                         0, n);
            }
            // 3. z_h against weights · v_h, row by row
            for (std::size_t t = 0; t < n; ++t)
                for (std::size_t col = 0; col < cols(b.v[h]); ++col) {
                    double sum = 0.0;
                    for (std::size_t j = 0; j <= t; ++j) sum += double(A(t, j)) * double(b.v[h](j, col));
                    worst = std::max(worst, std::abs(sum - double(b.z[h](t, col))));
                }
            r.weights.push_back(A);
        }
    r.outputs_error = Matrix({{float(worst)}});
    r.token_ids = xt::zeros<float>({std::size_t(1), n});
    for (std::size_t t = 0; t < n; ++t) r.token_ids(0, t) = float(ids[t]);
    r.logits = f.logits;  // (n × V): one sequence
    // 4. after each token, the most likely next ones
    const std::size_t k = std::min(next_shown, V);
    r.top_ids = xt::zeros<float>({n, k}), r.top_probabilities = xt::zeros<float>({n, k});
    for (std::size_t t = 0; t < n; ++t) {
        const std::vector<float> logits(f.logits.data() + t * V, f.logits.data() + (t + 1) * V);
        const std::vector<double> p = sampling_probabilities(logits, 1.0, 0);
        std::vector<std::size_t> order(V);
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
        for (std::size_t j = 0; j < k; ++j) r.top_ids(t, j) = float(order[j]), r.top_probabilities(t, j) = float(p[order[j]]);
    }
    return r;
}

MatrixList VariantReading::matrices() const {
    MatrixList list{{"token_ids", token_ids, "the sentence's tokens", "", "tokens", MatrixKind::indices},
                    {"logits", logits, "LN(x; ln_f) · wteᵀ", "tokens", ""}};
    list_heads(list, weights, heads, "weights", formula, "tokens");
    list.push_back({"top_ids", top_ids, "the most likely next tokens", "tokens", "", MatrixKind::indices});
    list.push_back({"top_probabilities", top_probabilities, "their p = softmax(logits)", "tokens", ""});
    return list;
}

double band_mean(const Matrix& by_position, std::size_t from, std::size_t to) {
    double sum = 0.0;
    for (std::size_t i = from; i < to; ++i) sum += by_position(0, i);
    return sum / double(to - from);
}

SeedSpread spread_over_seeds(const Matrix& losses) {
    const std::size_t K = rows(losses), N = cols(losses);
    SeedSpread s{xt::zeros<float>({K, std::size_t(1)}), xt::zeros<float>({K, std::size_t(1)}),
                 xt::zeros<float>({K, std::size_t(1)}), xt::zeros<float>({K, std::size_t(1)})};
    // 1. each variant's mean, lowest and highest over its seeds
    for (std::size_t k = 0; k < K; ++k) {
        double sum = 0.0;
        float low = losses(k, 0), high = losses(k, 0);
        for (std::size_t j = 0; j < N; ++j) sum += losses(k, j), low = std::min(low, losses(k, j)), high = std::max(high, losses(k, j));
        s.mean(k, 0) = float(sum / double(N)), s.low(k, 0) = low, s.high(k, 0) = high;
    }
    // 2. rank: 1 + the variants clearly lower (their highest below this one's lowest)
    for (std::size_t k = 0; k < K; ++k) {
        std::size_t lower = 0;
        for (std::size_t j = 0; j < K; ++j) lower += s.high(j, 0) < s.low(k, 0) ? 1 : 0;
        s.rank(k, 0) = float(1 + lower);
    }
    return s;
}

double separation_by_chance(std::size_t seeds) {
    double ways = 1.0;  // C(2N, N) = Π_{i=1…N} (N + i) / i
    for (std::size_t i = 1; i <= seeds; ++i) ways = ways * double(seeds + i) / double(i);
    return 2.0 / ways;
}
