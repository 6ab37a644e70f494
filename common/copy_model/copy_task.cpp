#include "common/copy_model/copy_task.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/learning/adam.hpp"
#include "common/learning/finite_difference.hpp"

std::vector<Tokens> repeated_sequences(Random& rng, std::size_t count, std::size_t vocabulary, std::size_t half,
                                       std::size_t shortest_lag) {
    std::vector<Tokens> batch(count, Tokens(2 * half));
    for (Tokens& s : batch) {
        const std::size_t lag = shortest_lag + std::size_t(rng.uniform() * double(half - shortest_lag + 1));
        for (std::size_t i = 0; i < 2 * half; ++i)  // tokens[i] uniform for i < lag, tokens[i − lag] after
            s[i] = i < lag ? std::size_t(rng.uniform() * double(vocabulary)) : s[i - lag];
    }
    return batch;
}

std::vector<Tokens> held_out_sequences(const CopyTaskSettings& s, Random* rest) {
    Random held(s.seed * 2 + 2);
    std::vector<Tokens> sequences =
        repeated_sequences(held, held_out_count, s.vocabulary, s.half_length, s.half_length);
    if (rest) *rest = held;
    return sequences;
}

Halves halves(const ModelForward<float>& f, const std::vector<Tokens>& batch, std::size_t half) {
    Halves r;
    const std::size_t n = f.length;
    for (std::size_t b = 0; b < f.batch; ++b)
        for (std::size_t i = 0; i + 1 < n; ++i) {
            if (i + 1 == half) continue;  // the prediction of token L (a copy of token 0) is in neither half
            const std::size_t row = b * n + i, next = batch[b][i + 1];
            const double loss = token_loss(f.logits, row, next);
            const double right = argmax_of_row(f.probs, row) == next ? 1.0 : 0.0;
            (i < half ? r.loss_first : r.loss_second) += loss;
            (i < half ? r.accuracy_first : r.accuracy_second) += right;
        }
    // L − 1 predictions per sequence in the first half, L − 1 in the second
    const double count = double(f.batch * (half - 1));
    r.loss_first /= count, r.loss_second /= count, r.accuracy_first /= count, r.accuracy_second /= count;
    return r;
}

namespace {
TrainingMemory* memory = nullptr;
}

void use_training_memory(TrainingMemory* m) { memory = m; }

std::string settings_text(const CopyTaskSettings& s) {
    std::string text;
    const auto add = [&](const char* name, std::uint64_t value) {
        text += (text.empty() ? "" : " ") + std::string(name) + " " + std::to_string(value);
    };
    const auto bits = [](float x) {  // a float exactly, as its 32 bits
        std::uint32_t b = 0;
        std::memcpy(&b, &x, sizeof b);
        return b;
    };
    // Every field of CopyTaskSettings and Variant: one left out would let two different trainings
    // share a key (test_training_memory checks that changing each field changes the text).
    add("V", s.vocabulary), add("L", s.half_length), add("d", s.d_model), add("layers", s.layers);
    add("heads", s.heads), add("batch", s.batch), add("steps", std::uint64_t(s.steps));
    add("log_every", std::uint64_t(s.log_every)), add("lr", bits(s.lr)), add("decay", bits(s.decay_share));
    add("positions", s.learned_positions), add("seed", s.seed), add("mixer", std::uint64_t(s.mixer));
    const Variant& v = s.variant;
    add("window", v.window), add("sinks", v.sinks), add("top_k", v.top_k), add("rank", v.indexer_rank);
    add("sink_logit", v.sink_logit), add("kv_heads", v.kv_heads), add("latent", v.latent);
    return text;
}

AttentionOnlyModel<float> starting_model(const CopyTaskSettings& s) {
    return random_model(s.vocabulary, 2 * s.half_length, s.d_model, s.layers, s.heads, s.learned_positions, s.seed,
                        s.mixer, s.variant);
}

TrainedModel train_copy_task(const CopyTaskSettings& s, const Progress& progress) {
    TrainedModel r;
    if (memory && memory->recall(s, r)) return r;  // trained by an earlier run: nothing to hear
    const std::size_t L = s.half_length;
    Random data(s.seed * 2 + 1);
    const std::vector<Tokens> held_out = held_out_sequences(s);
    const std::vector<Tokens> probe(held_out.begin(), held_out.begin() + long(probe_count));
    r.start = r.trained = starting_model(s);
    r.before = halves(model_forward(r.start, held_out, {}, Fill::for_gradient), held_out, L);
    // training: one batch of fresh sequences per step, one Adam step on its gradient
    Adam adam(s.lr);
    const std::vector<Mat<float>*> weights = parameters(r.trained);
    for (int step = 0; step <= s.steps; ++step) {
        if (step % s.log_every == 0 || step == s.steps) {
            const Halves h = halves(model_forward(r.trained, probe, {}, Fill::for_gradient), probe, L);
            r.curve.push_back({step, h.loss_first, h.loss_second});
            if (progress) progress(step, s.steps, r.curve.back());
        }
        if (step == s.steps) break;
        // lr until the last decay steps, then falling linearly to 0: the weights settle instead of jittering
        const int left = s.steps - step, decay = std::max(1, int(std::lround(s.decay_share * float(s.steps))));
        adam.set_learning_rate(left >= decay ? s.lr : s.lr * float(left) / float(decay));
        const std::vector<Tokens> batch = repeated_sequences(data, s.batch, s.vocabulary, L, shortest_lag(L));
        const ModelForward<float> f = model_forward(r.trained, batch, {}, Fill::for_gradient);
        AttentionOnlyModel<float> g = model_backward(r.trained, batch, f, next_token_gradient(f, batch));
        const std::vector<Mat<float>*> grads = parameters(g);
        adam.step(weights, std::vector<const Matrix*>(grads.begin(), grads.end()));
    }
    r.after = halves(model_forward(r.trained, held_out, {}, Fill::for_gradient), held_out, L);
    if (memory) memory->remember(s, r);
    return r;
}

GradientCheck gradient_check(const AttentionOnlyModel<double>& m, const std::vector<Tokens>& batch, double h) {
    Mat<double> d_logits;
    const ModelForward<double> f = model_forward(m, batch);
    next_token_loss(f, batch, &d_logits);
    AttentionOnlyModel<double> grad = model_backward(m, batch, f, d_logits), probe = m;
    const std::vector<Mat<double>*> analytic = parameters(grad), entries = parameters(probe);
    double largest = 0;
    for (const Mat<double>* a : analytic) largest = std::max(largest, double(xt::amax(xt::abs(*a))()));
    GradientCheck r;
    for (std::size_t p = 0; p < entries.size(); ++p)
        for (std::size_t i = 0; i < entries[p]->size(); ++i, ++r.entries) {
            const double numeric = central_slope(entries[p]->flat(i), h,
                                                 [&] { return next_token_loss(model_forward(probe, batch), batch); });
            const double a = analytic[p]->flat(i);
            r.max_abs_error = std::max(r.max_abs_error, std::abs(a - numeric));
            const double scale = std::max({std::abs(a), std::abs(numeric), 1e-2 * largest});
            r.max_relative_error = std::max(r.max_relative_error, std::abs(a - numeric) / scale);
        }
    return r;
}

std::string head_name(const CopyTaskSettings& s, std::size_t k) {
    return "L" + std::to_string(k / s.heads + 1) + "H" + std::to_string(k % s.heads);
}

Labels head_names(const CopyTaskSettings& s) {
    Labels labels;
    for (std::size_t k = 0; k < s.layers * s.heads; ++k) labels.push_back(head_name(s, k));
    return labels;
}

Labels token_labels(const Tokens& tokens) {
    Labels labels;
    for (std::size_t v : tokens) labels.push_back(std::to_string(v));
    return labels;
}

Matrix token_row(const Tokens& tokens) {
    Matrix m = Matrix::from_shape({1, tokens.size()});
    for (std::size_t i = 0; i < tokens.size(); ++i) m(0, i) = float(tokens[i]);
    return m;
}
