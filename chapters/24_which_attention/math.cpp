#include "chapters/24_which_attention/math.hpp"

#include <algorithm>

#include <xtensor/xbuilder.hpp>

#include "common/gpt/gpt_attention.hpp"

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

std::vector<VariantChoice> variant_choices(const GptConfig& c) {
    const std::size_t H = c.heads, dh = c.d_model / H, w = window_of(c);
    std::vector<VariantChoice> v{{"MHA", "7, 22", {}}, {"MQA", "15", {Mixer::softmax, 1, 0, 0, false, false}}};
    if (H % 2 == 0 && H / 2 > 1) v.push_back({"GQA", "15", {Mixer::softmax, H / 2, 0, 0, false, false}});
    if (dh % 2 == 0) v.push_back({"RoPE", "14", {Mixer::softmax, 0, 0, 0, false, true}});
    v.push_back({"sliding window", "20", {Mixer::softmax, 0, w, 0, false, false}});
    v.push_back({"window + sinks", "20", {Mixer::softmax, 0, w, sinks_kept, false, false}});
    v.push_back({"sink logit", "20", {Mixer::softmax, 0, 0, 0, true, false}});
    v.push_back({"linear", "19", {Mixer::linear, 0, 0, 0, false, false}});
    v.push_back({"DeltaNet", "19", {Mixer::delta, 0, 0, 0, false, false}});
    v.push_back({"gated DeltaNet", "19", {Mixer::gated_delta, 0, 0, 0, false, false}});
    return v;
}

std::uint64_t kept_floats(const GptConfig& c) {
    const GptAttention& a = c.attention;
    const std::uint64_t H = c.heads, dh = c.d_model / c.heads, T = c.context;
    // ┌ exercise kept-floats
    if (a.mixer == Mixer::linear) return H * (dh * dh + dh);
    if (a.mixer == Mixer::delta || a.mixer == Mixer::gated_delta) return H * dh * dh;
    const std::uint64_t g = a.kv_heads == 0 ? H : a.kv_heads;
    const std::uint64_t keys = a.window == 0 ? T : std::min<std::uint64_t>(T, a.window + a.sinks);
    return keys * 2 * g * dh;
    // └ stub: (void)a, (void)H, (void)dh, (void)T; return 0;
}

std::uint64_t kept_floats_seen(const Gpt<float>& model, const Tokens& window) {
    const GptForward<float> f = gpt_forward(model, {window});
    const GptBlockForward<float>& b = f.blocks[0];
    const std::uint64_t d = model.config.d_model, n = window.size();
    if (!b.states.empty()) return b.states.size() * b.states[0].shape(1);  // H heads of d_h × d_h
    if (!b.phi_k.empty()) {  // S = Σ φ(k) vᵀ (d_h × d_h) and z = Σ φ(k) (d_h), per head
        const std::uint64_t dk = b.phi_k[0].shape(1), dv = b.v[0].shape(1);
        return b.phi_k.size() * (dk * dv + dk);
    }
    std::uint64_t read = 0;  // the keys the last query reads: its weights that are not 0
    for (std::size_t j = 0; j < n; ++j) read += b.weights[0](n - 1, j) != 0.0f ? 1 : 0;
    return read * (b.qkv.shape(1) - d);  // the key and value columns of [q k v]
}

VariantMeasures measure_variant(const Gpt<float>& model, const Tokens& held_out, std::size_t windows,
                                std::size_t passages) {
    const std::size_t T = model.config.context, s = T / 2;
    VariantMeasures m;
    // 1. the held-out windows of T + 1 tokens, as held_out_loss takes them: each position's mean loss
    const std::size_t all = (held_out.size() - 1) / T, W = std::min(all, windows);
    std::vector<double> position(T, 0.0);
    double total = 0.0;
    for (std::size_t first = 0; first < W; first += windows_per_pass) {
        const std::size_t count = std::min(windows_per_pass, W - first);
        std::vector<Tokens> inputs(count, Tokens(T)), targets(count, Tokens(T));
        for (std::size_t b = 0; b < count; ++b) {
            const std::ptrdiff_t start = spread_start(first + b, W, all, T);
            std::copy_n(held_out.begin() + start, T, inputs[b].begin());
            std::copy_n(held_out.begin() + start + 1, T, targets[b].begin());
        }
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

double band_mean(const Matrix& by_position, std::size_t from, std::size_t to) {
    double sum = 0.0;
    for (std::size_t i = from; i < to; ++i) sum += by_position(0, i);
    return sum / double(to - from);
}
