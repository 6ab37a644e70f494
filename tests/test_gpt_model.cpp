// The GPT (common/gpt/gpt_model.hpp) against things computed another way: its hand-written
// backward pass against central finite differences in double, every entry of every parameter;
// its float forward pass against plain loops in double written here (token by token, head by
// head, key by key); its names and shapes against nanoGPT's; a tiny training run.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <xtensor/xview.hpp>

#include "common/block/feed_forward.hpp"
#include "common/gpt/gpt_decoding.hpp"
#include "common/gpt/gpt_layers.hpp"
#include "common/gpt/gpt_model.hpp"
#include "common/gpt/gpt_training.hpp"
#include "common/learning/finite_difference.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/random.hpp"
#include "common/reference/gpt_by_loops.hpp"
#include "tests/shaken_gpt.hpp"

namespace {

const GptConfig tiny{7, 5, 2, 2, 8};  // V, T, L, H, d

std::vector<Tokens> random_tokens(Random& rng, std::size_t count, std::size_t n, std::size_t vocabulary) {
    std::vector<Tokens> batch(count, Tokens(n));
    for (Tokens& s : batch)
        for (std::size_t& t : s) t = std::size_t(rng.uniform() * double(vocabulary));
    return batch;
}

Gpt<float> shaken_model(const GptConfig& config, std::uint64_t seed) { return shaken_gpt(config, seed); }

// ---- the reference: plain loops in double, one token at a time ----

using Row = std::vector<double>;

Row layer_norm_row(const Row& x, const Mat<float>& gamma, const Mat<float>& beta) {
    const double d = double(x.size());
    double mean = 0, variance = 0;
    for (double v : x) mean += v / d;
    for (double v : x) variance += (v - mean) * (v - mean) / d;
    Row y(x.size());
    for (std::size_t c = 0; c < x.size(); ++c)
        y[c] = (x[c] - mean) / std::sqrt(variance + 1e-5) * gamma(0, c) + beta(0, c);
    return y;
}

// W x + b, W (out × in) as nn.Linear stores it.
Row apply_linear(const Mat<float>& W, const Mat<float>& b, const Row& x) {
    Row y(W.shape(0));
    for (std::size_t j = 0; j < y.size(); ++j) {
        double sum = b(0, j);
        for (std::size_t k = 0; k < x.size(); ++k) sum += double(W(j, k)) * x[k];
        y[j] = sum;
    }
    return y;
}

// The logits of one sequence (n × V), every row as its own loop.
std::vector<Row> reference_logits(const Gpt<float>& m, const Tokens& tokens) {
    const std::size_t n = tokens.size(), d = m.config.d_model, H = m.config.heads, dh = d / H;
    std::vector<Row> x(n, Row(d));
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t c = 0; c < d; ++c) x[t][c] = double(m.wte(tokens[t], c)) + double(m.wpe(t, c));
    for (const GptBlock<float>& b : m.h) {
        std::vector<Row> qkv;
        for (std::size_t t = 0; t < n; ++t)
            qkv.push_back(apply_linear(b.c_attn_weight, b.c_attn_bias, layer_norm_row(x[t], b.ln_1_weight, b.ln_1_bias)));
        for (std::size_t t = 0; t < n; ++t) {
            Row z(d, 0.0);  // the heads' outputs side by side
            for (std::size_t h = 0; h < H; ++h) {
                Row score(t + 1);  // query t against keys 0 … t
                for (std::size_t j = 0; j <= t; ++j) {
                    double dot = 0;
                    for (std::size_t c = 0; c < dh; ++c) dot += qkv[t][h * dh + c] * qkv[j][d + h * dh + c];
                    score[j] = dot / std::sqrt(double(dh));
                }
                const double top = *std::max_element(score.begin(), score.end());
                double total = 0;
                for (double& s : score) total += (s = std::exp(s - top));
                for (std::size_t j = 0; j <= t; ++j)
                    for (std::size_t c = 0; c < dh; ++c) z[h * dh + c] += score[j] / total * qkv[j][2 * d + h * dh + c];
            }
            const Row out = apply_linear(b.attn_proj_weight, b.attn_proj_bias, z);
            for (std::size_t c = 0; c < d; ++c) x[t][c] += out[c];
        }
        for (std::size_t t = 0; t < n; ++t) {
            Row u = apply_linear(b.c_fc_weight, b.c_fc_bias, layer_norm_row(x[t], b.ln_2_weight, b.ln_2_bias));
            for (double& v : u) v = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
            const Row out = apply_linear(b.mlp_proj_weight, b.mlp_proj_bias, u);
            for (std::size_t c = 0; c < d; ++c) x[t][c] += out[c];
        }
    }
    std::vector<Row> logits;
    for (std::size_t t = 0; t < n; ++t) {
        const Row f = layer_norm_row(x[t], m.ln_f_weight, m.ln_f_bias);
        Row l(m.config.vocab, 0.0);
        for (std::size_t v = 0; v < l.size(); ++v)
            for (std::size_t c = 0; c < d; ++c) l[v] += double(m.wte(v, c)) * f[c];
        logits.push_back(l);
    }
    return logits;
}

// The largest relative difference between the backward pass and central differences
// (Richardson-extrapolated, h = 1e-5) over every entry of every parameter.
double worst_gradient_error(Gpt<double> m, const std::vector<Tokens>& inputs, const std::vector<Tokens>& targets,
                            std::string& worst_name) {
    Mat<double> d_logits;
    const GptForward<double> f = gpt_forward(m, inputs);
    gpt_loss(f, targets, &d_logits);
    Gpt<double> g = gpt_backward(m, inputs, f, d_logits);
    const std::vector<NamedParameter<double>> analytic = named_parameters(g), entries = named_parameters(m);
    REQUIRE(analytic.size() == entries.size());
    const double h = 1e-5;
    double worst = 0;
    for (std::size_t p = 0; p < entries.size(); ++p)
        for (std::size_t i = 0; i < entries[p].tensor->size(); ++i) {
            const double numeric = central_slope(entries[p].tensor->flat(i), h,
                                                 [&] { return gpt_loss(gpt_forward(m, inputs), targets); });
            const double a = analytic[p].tensor->flat(i);
            const double error = std::abs(a - numeric) / std::max({std::abs(a), std::abs(numeric), 1e-4});
            if (error > worst) worst = error, worst_name = entries[p].name;
        }
    return worst;
}

}  // namespace

TEST_CASE("gpt: the parameters carry nanoGPT's names and shapes, in its order") {
    Gpt<float> m = fresh_gpt({81, 64, 4, 4, 128}, 1);
    const std::vector<NamedParameter<float>> p = named_parameters(m);
    REQUIRE(p.size() == 2 + 4 * 12 + 2);
    CHECK(p[0].name == "transformer.wte.weight");
    CHECK(p[0].tensor->shape(0) == 81);
    CHECK(p[1].name == "transformer.wpe.weight");
    CHECK(p[4].name == "transformer.h.0.attn.c_attn.weight");
    CHECK(p[4].tensor->shape(0) == 384);
    CHECK(p[4].tensor->shape(1) == 128);
    CHECK(p[13].name == "transformer.h.0.mlp.c_proj.bias");
    CHECK(p[13].vector);
    CHECK(p[12].tensor->shape(1) == 512);
    CHECK(p.back().name == "transformer.ln_f.bias");
    std::size_t total = 0;
    for (const NamedParameter<float>& q : p) total += q.tensor->size();
    CHECK(total == parameter_count(m.config));
    // nanoGPT's model without biases has 806,144 (0.80 M without wpe, as it counts); the biases of
    // LayerNorm and the linear layers add 4·(d + 3d + d + d + 4d + d) + d = 5,760
    CHECK(total == 811904);
    // the start: LayerNorm 1 and 0, biases 0, weights about 0.02, c_proj about 0.02/√8
    CHECK((*p[2].tensor)(0, 5) == 1.0f);
    CHECK((*p[5].tensor)(0, 5) == 0.0f);
    const auto spread = [](const Mat<float>& w) {
        double s = 0;
        for (float x : w) s += double(x) * x;
        return std::sqrt(s / double(w.size()));
    };
    CHECK(spread(*p[4].tensor) == doctest::Approx(0.02).epsilon(0.02));
    CHECK(spread(*p[12].tensor) == doctest::Approx(0.02 / std::sqrt(8.0)).epsilon(0.02));
    CHECK(fresh_gpt({81, 64, 4, 4, 128}, 1).wte == m.wte);  // the seed decides every number
}

TEST_CASE("gpt: the backward pass matches central finite differences in double, every parameter") {
    Random rng(5);
    for (std::uint64_t seed : {1u, 2u}) {
        const Gpt<double> m = gpt_in_double(shaken_model(tiny, seed));
        const std::size_t n = seed == 1 ? tiny.context : 3;  // the full context, and a shorter one
        const std::vector<Tokens> inputs = random_tokens(rng, 2, n, tiny.vocab);
        const std::vector<Tokens> targets = random_tokens(rng, 2, n, tiny.vocab);
        std::string worst_name;
        const double worst = worst_gradient_error(m, inputs, targets, worst_name);
        INFO("seed ", seed, ", worst at ", worst_name);
        CHECK(worst < 1e-6);
    }
}

TEST_CASE("gpt: the float forward pass matches plain loops in double") {
    const GptConfig config{11, 6, 2, 2, 16};
    const Gpt<float> m = shaken_model(config, 3);
    Random rng(9);
    const std::vector<Tokens> inputs = random_tokens(rng, 3, 6, config.vocab), targets = random_tokens(rng, 3, 6, config.vocab);
    const GptForward<float> f = gpt_forward(m, inputs);
    double worst = 0, loss = 0;
    for (std::size_t b = 0; b < inputs.size(); ++b) {
        const std::vector<Row> logits = reference_logits(m, inputs[b]);
        for (std::size_t t = 0; t < logits.size(); ++t) {
            double top = *std::max_element(logits[t].begin(), logits[t].end()), total = 0;
            for (std::size_t v = 0; v < config.vocab; ++v) {
                total += std::exp(logits[t][v] - top);
                const double ours = f.logits(b * 6 + t, v);
                worst = std::max(worst, std::abs(ours - logits[t][v]) / std::max(1.0, std::abs(logits[t][v])));
            }
            loss += (top + std::log(total) - logits[t][targets[b][t]]) / double(3 * 6);
        }
    }
    CHECK(worst < 1e-5);
    CHECK(gpt_loss(f, targets) == doctest::Approx(loss).epsilon(1e-5));
}

TEST_CASE("gpt: a short sequence reads only its own positions, and bad batches are refused") {
    const Gpt<float> m = fresh_gpt(tiny, 4);
    const GptForward<float> whole = gpt_forward(m, {{1, 2, 3, 4, 5}}), start = gpt_forward(m, {{1, 2, 3}});
    for (std::size_t v = 0; v < tiny.vocab; ++v) CHECK(start.logits(2, v) == doctest::Approx(whole.logits(2, v)).epsilon(1e-6));
    CHECK_THROWS_AS(gpt_forward(m, {{1, 2, 3, 4, 5, 6}}), InputError);  // longer than the context
    CHECK_THROWS_AS(gpt_forward(m, {{1, 7}}), InputError);               // outside the vocabulary
    CHECK_THROWS_AS(gpt_forward(m, {{1, 2}, {3}}), InputError);          // ragged
    CHECK_THROWS_AS(gpt_loss(whole, {{1, 2, 3}}), InputError);           // targets that do not fit
    CHECK_THROWS_AS(fresh_gpt({7, 5, 2, 3, 8}, 1), InputError);          // 8 does not split into 3 heads
}

TEST_CASE("gpt: AdamW's first two steps, the schedule and clipping, against closed forms") {
    // one decayed matrix [w], one vector [u] without decay, gradients g₁ then g₂
    Mat<float> w{{0.5f}}, u{{-0.25f}}, gw{{0.2f}}, gu{{-3.0f}};
    AdamW optimiser;     // β₁ 0.9, β₂ 0.99, ε 1e-8, decay 0.1
    const float lr = 0.01f;
    optimiser.step({&w, &u}, {&gw, &gu}, {true, false}, lr);
    // step 1: m̂ = g, v̂ = g²: w ← w(1 − lr·wd) − lr·g/(|g| + ε) = 0.5·0.999 − 0.01
    CHECK(w(0, 0) == doctest::Approx(0.5 * 0.999 - 0.01).epsilon(1e-6));
    CHECK(u(0, 0) == doctest::Approx(-0.25 + 0.01).epsilon(1e-6));
    const double w1 = w(0, 0);
    gw(0, 0) = -0.1f;
    optimiser.step({&w, &u}, {&gw, &gu}, {true, false}, lr);
    // step 2: m = 0.09·0.2·… : m = 0.9·0.1·0.2 + 0.1·(−0.1), v = 0.99·0.01·0.04 + 0.01·0.01
    const double m2 = 0.9 * 0.1 * 0.2 + 0.1 * -0.1, v2 = 0.99 * 0.01 * 0.04 + 0.01 * 0.01;
    const double expected = w1 * 0.999 - lr * (m2 / (1 - 0.81)) / (std::sqrt(v2 / (1 - 0.9801)) + 1e-8);
    CHECK(w(0, 0) == doctest::Approx(expected).epsilon(1e-6));
    CHECK(u(0, 0) == doctest::Approx(-0.25 + 0.02).epsilon(1e-6));  // the same gradient twice: lr each time
    // the schedule: warmup (s + 1)/(warmup + 1), cosine from lr at s = warmup to lr/10 at the last step
    CHECK(scheduled_learning_rate(0, 1e-3f, 100, 2000, 1e-4f) == doctest::Approx(1e-3 / 101));
    CHECK(scheduled_learning_rate(99, 1e-3f, 100, 2000, 1e-4f) == doctest::Approx(1e-3 * 100 / 101));
    CHECK(scheduled_learning_rate(100, 1e-3f, 100, 2000, 1e-4f) == doctest::Approx(1e-3));
    CHECK(scheduled_learning_rate(1050, 1e-3f, 100, 2000, 1e-4f) == doctest::Approx(5.5e-4));  // halfway: the mean
    CHECK(scheduled_learning_rate(2000, 1e-3f, 100, 2000, 1e-4f) == doctest::Approx(1e-4));
    CHECK(scheduled_learning_rate(2500, 1e-3f, 100, 2000, 1e-4f) == doctest::Approx(1e-4));
    // clipping: gradients (3, 4) and (12) have norm 13; scaled to norm 1, direction kept
    Mat<float> a{{3.0f, 4.0f}}, b{{12.0f}};
    CHECK(clip_gradient_norm({&a, &b}, 1.0) == doctest::Approx(13.0));
    CHECK(a(0, 1) == doctest::Approx(4.0 / (13.0 + 1e-6)));
    CHECK(b(0, 0) == doctest::Approx(12.0 / (13.0 + 1e-6)));
    CHECK(clip_gradient_norm({&a, &b}, 1.0) == doctest::Approx(1.0).epsilon(1e-5));
    CHECK(a(0, 1) == doctest::Approx(4.0 / (13.0 + 1e-6)));  // within the norm: left as it was
}

TEST_CASE("gpt: a tiny model learns a repeating sequence") {
    const GptConfig config{5, 8, 1, 2, 16};
    Gpt<float> m = fresh_gpt(config, 7);
    GptTrainer trainer;
    // 0 1 2 3 4 0 1 2 …, each sequence starting elsewhere: the next token is the current one + 1
    std::vector<Tokens> inputs(4, Tokens(8)), targets(4, Tokens(8));
    for (std::size_t b = 0; b < 4; ++b)
        for (std::size_t i = 0; i < 8; ++i) inputs[b][i] = (b + i) % 5, targets[b][i] = (b + i + 1) % 5;
    const double first = trainer.step(m, inputs, targets, 1e-2f).loss;
    CHECK(first == doctest::Approx(std::log(5.0)).epsilon(0.05));  // chance at the start
    double last = first;
    for (int s = 0; s < 60; ++s) last = trainer.step(m, inputs, targets, 1e-2f).loss;
    CHECK(last < 0.1);
}

TEST_CASE("gpt: GELU in float, and its slope, match the exact ones in double") {
    Mat<float> z = Mat<float>::from_shape({1, 4003});  // not a multiple of 8: the last few too
    for (std::size_t i = 0; i < z.size(); ++i) z.flat(i) = -10.0f + 0.005f * float(i);
    z.flat(4002) = -100.0f;  // far out: GELU 0, slope 0
    Mat<float> y, cdf, slope = xt::ones<float>({std::size_t(1), z.size()});
    gpt_layers::gelu(z, y, &cdf);
    gpt_layers::gelu_backward(z, cdf, slope);
    double worst_value = 0, worst_slope = 0;
    for (std::size_t i = 0; i < z.size(); ++i) {
        const double x = z.flat(i);
        worst_value = std::max(worst_value, std::abs(y.flat(i) - exact_gelu(x)) / std::max(1.0, std::abs(x)));
        worst_slope = std::max(worst_slope, std::abs(slope.flat(i) - exact_gelu_slope(x)));
    }
    CHECK(worst_value < 1e-6);
    CHECK(worst_slope < 1e-6);
}

TEST_CASE("gpt: the trainer's kept buffers give the numbers of fresh ones, bit for bit") {
    const GptConfig config{9, 6, 2, 2, 16};
    Gpt<float> kept = fresh_gpt(config, 8), fresh = kept;
    Random rng(12);
    GptTrainer trainer;
    AdamW optimiser;
    for (int s = 0; s < 3; ++s) {
        // another batch shape each step: the buffers are reshaped, then reused
        const std::vector<Tokens> inputs = random_tokens(rng, s == 1 ? 3 : 2, s == 1 ? 4 : 6, config.vocab);
        const std::vector<Tokens> targets = random_tokens(rng, inputs.size(), inputs[0].size(), config.vocab);
        const GptStep step = trainer.step(kept, inputs, targets, 1e-2f);
        Mat<float> d_logits;
        const GptForward<float> f = gpt_forward(fresh, inputs);
        CHECK(gpt_loss(f, targets, &d_logits) == step.loss);
        Gpt<float> g = gpt_backward(fresh, inputs, f, d_logits);
        std::vector<Mat<float>*> p, gp;
        std::vector<const Mat<float>*> gr;
        std::vector<bool> decays;
        for (const NamedParameter<float>& x : named_parameters(fresh)) p.push_back(x.tensor), decays.push_back(!x.vector);
        for (const NamedParameter<float>& x : named_parameters(g)) gp.push_back(x.tensor), gr.push_back(x.tensor);
        CHECK(clip_gradient_norm(gp, 1.0) == step.gradient_norm);
        optimiser.step(p, gr, decays, 1e-2f);
    }
    const std::vector<NamedParameter<float>> a = named_parameters(kept), b = named_parameters(fresh);
    for (std::size_t k = 0; k < a.size(); ++k) CHECK(*a[k].tensor == *b[k].tensor);
}

// ---- the attention variants (gpt_attention.hpp) ----

namespace {

// Every variant the GPT's attention offers, at a size where each matters: 4 heads (GQA's 2
// groups between MQA's 1 and MHA's 4), d_h = 4 (RoPE's two pairs, MLA's one), a context of 6 (a
// window of 2 and 1 sink hide keys), MLA's latent of 6 (narrower than the 2d = 32 it gives).
struct NamedVariant {
    const char* name;
    GptAttention attention;
};
const std::vector<NamedVariant> variants{
    {"MHA", {}},
    {"MQA", {Mixer::softmax, 1, 0, 0, false, false}},
    {"GQA", {Mixer::softmax, 2, 0, 0, false, false}},
    {"RoPE", {Mixer::softmax, 0, 0, 0, false, true}},
    {"sliding window", {Mixer::softmax, 0, 2, 0, false, false}},
    {"window + sinks", {Mixer::softmax, 0, 2, 1, false, false}},
    {"sink logit", {Mixer::softmax, 0, 0, 0, true, false}},
    {"GQA + RoPE + window", {Mixer::softmax, 2, 3, 0, false, true}},
    {"linear", {Mixer::linear, 0, 0, 0, false, false}},
    {"DeltaNet", {Mixer::delta, 0, 0, 0, false, false}},
    {"gated DeltaNet", {Mixer::gated_delta, 0, 0, 0, false, false}},
    {"MLA", {Mixer::softmax, 0, 0, 0, false, false, 6}},
    {"top-k", {Mixer::softmax, 0, 0, 0, false, false, 0, 2}},
    {"top-k + window + sinks", {Mixer::softmax, 0, 3, 1, false, false, 0, 2}},
};

GptConfig variant_config(const GptAttention& attention) {
    GptConfig c{7, 6, 1, 4, 16};
    c.attention = attention;
    return c;
}

}  // namespace

TEST_CASE("gpt variants: each backward pass matches central finite differences in double, every parameter") {
    Random rng(21);
    for (const NamedVariant& v : variants) {
        const Gpt<double> m = gpt_in_double(shaken_model(variant_config(v.attention), 3));
        const std::vector<Tokens> inputs = random_tokens(rng, 2, 6, 7), targets = random_tokens(rng, 2, 6, 7);
        std::string worst_name;
        const double worst = worst_gradient_error(m, inputs, targets, worst_name);
        INFO(std::string(v.name), ": worst at ", worst_name);
        CHECK(worst < 1e-6);
    }
}

TEST_CASE("gpt variants: the float forward pass matches the loops in double, and the parameters are counted") {
    Random rng(22);
    for (const NamedVariant& v : variants) {
        INFO(std::string(v.name));
        const GptConfig config = variant_config(v.attention);
        Gpt<float> m = shaken_model(config, 4);
        const std::vector<Tokens> inputs = random_tokens(rng, 2, 6, 7);
        const GptForward<float> f = gpt_forward(m, inputs);
        double worst = 0;
        for (std::size_t b = 0; b < inputs.size(); ++b) {
            const GptByLoops loops = gpt_by_loops(m, inputs[b]);
            for (std::size_t t = 0; t < 6; ++t)
                for (std::size_t x = 0; x < config.vocab; ++x)
                    worst = std::max(worst, std::abs(f.logits(b * 6 + t, x) - loops.logits(t, x)) /
                                                std::max(1.0, std::abs(loops.logits(t, x))));
        }
        CHECK(worst < 2e-5);
        std::size_t total = 0;
        for (const NamedParameter<float>& p : named_parameters(m)) total += p.tensor->size();
        CHECK(total == parameter_count(config));
    }
    // what each variant adds or drops, against MHA's count
    const std::size_t mha = parameter_count(variant_config({}));
    CHECK(mha - parameter_count(variant_config(variants[1].attention)) == 2 * (16 * 16 + 16) - 2 * (4 * 16 + 4));  // MQA's k, v: one head
    CHECK(mha - parameter_count(variant_config(variants[3].attention)) == 6 * 16);  // RoPE: no wpe
    CHECK(parameter_count(variant_config(variants[6].attention)) - mha == 4);       // a sink per head
    CHECK(parameter_count(variant_config(variants[10].attention)) - mha == 2 * 4 * 16 + 4);  // b_proj, a_proj and its bias
    // MLA: c_attn of 16 + 4·2 + 6 + 2 = 32 rows (MHA's 48), kv_up (32 × 6) and its bias, no wpe
    CHECK(parameter_count(variant_config(variants[11].attention)) + (48 - 32) * (16 + 1) + 6 * 16 ==
          mha + 32 * 6 + 32);
}

TEST_CASE("gpt variants: one token at a time through each variant's cache, the full pass's logits") {
    Random rng(23);
    for (const NamedVariant& v : variants) {
        INFO(std::string(v.name));
        GptConfig config = variant_config(v.attention);
        config.layers = 2;
        const Gpt<float> m = shaken_model(config, 7);
        const Tokens text = random_tokens(rng, 1, config.context, config.vocab)[0];
        const GptForward<float> full = gpt_forward(m, std::vector<Tokens>{text});
        GptCache cache = empty_cache(config);
        double worst = 0;
        for (std::size_t p = 0; p < text.size(); ++p) {
            const std::vector<float> logits = next_logits(m, cache, text[p]);
            for (std::size_t x = 0; x < config.vocab; ++x)
                worst = std::max(worst, std::abs(double(logits[x]) - full.logits(p, x)) /
                                            std::max(1.0, std::abs(double(full.logits(p, x)))));
        }
        CHECK(worst < 2e-5);
        // what a layer keeps after T tokens, written out for this shape (T = 6, H = 4, d_h = 4)
        const GptAttention& a = v.attention;
        const std::size_t T = 6, H = 4, dh = 4, g = a.kv_heads == 0 ? H : a.kv_heads;
        std::size_t kept = (a.window == 0 ? T : std::min(T, a.window + a.sinks)) * 2 * g * dh;
        if (a.latent > 0) kept = T * (a.latent + dh / 2);
        if (a.mixer == Mixer::linear) kept = H * (dh * dh + dh);
        if (a.mixer == Mixer::delta || a.mixer == Mixer::gated_delta) kept = H * dh * dh;
        CHECK(cached_floats(cache, 0) == kept);
        CHECK(cached_floats(cache, 1) == kept);
        CHECK_THROWS_AS(next_logits(m, cache, 0), InputError);  // full
    }
}

TEST_CASE("gpt variants: the key–value heads, the window and the sinks change what a query reads") {
    // a window of 1 reads only the query's own key: a query's output then ignores every earlier token
    GptAttention own{Mixer::softmax, 0, 1, 0, false, false};
    const Gpt<float> m = shaken_model(variant_config(own), 5);
    const GptForward<float> a = gpt_forward(m, {{1, 2, 3, 4}}), b = gpt_forward(m, {{5, 6, 0, 4}});
    for (std::size_t x = 0; x < 7; ++x) CHECK(a.logits(3, x) == b.logits(3, x));
    // with one sink too, token 0 counts again
    GptAttention sink{Mixer::softmax, 0, 1, 1, false, false};
    Gpt<float> s = m;
    s.config.attention = sink;
    CHECK(gpt_forward(s, {{1, 2, 3, 4}}).logits(3, 0) != gpt_forward(s, {{5, 2, 3, 4}}).logits(3, 0));
    CHECK(gpt_forward(s, {{1, 2, 3, 4}}).logits(3, 0) == gpt_forward(s, {{1, 6, 3, 4}}).logits(3, 0));
    // MQA's one key–value head: every head reads the same keys (the same columns of [q k v])
    const Gpt<float> mqa = shaken_model(variant_config(variants[1].attention), 6);
    const GptForward<float> f = gpt_forward(mqa, {{1, 2, 3}});
    CHECK(f.blocks[0].k[0] == f.blocks[0].k[3]);
    CHECK(f.blocks[0].qkv.shape(1) == 16 + 2 * 4);
    // GQA with 2 groups: heads 0, 1 share key–value head 0; heads 2, 3 share head 1
    const Gpt<float> gqa = shaken_model(variant_config(variants[2].attention), 6);
    const GptForward<float> q = gpt_forward(gqa, {{1, 2, 3}});
    CHECK(q.blocks[0].k[0] == q.blocks[0].k[1]);
    CHECK(q.blocks[0].k[2] == q.blocks[0].k[3]);
    CHECK(q.blocks[0].k[1] != q.blocks[0].k[2]);
    // MLA: every head's key ends with the one RoPE key (d_h/2 = 2 columns), turned; the rest differ
    const Gpt<float> mla = shaken_model(variant_config(variants[11].attention), 6);
    const GptForward<float> l = gpt_forward(mla, {{1, 2, 3}});
    CHECK(l.blocks[0].k[0].shape(1) == 4 + 2);
    CHECK(xt::view(l.blocks[0].k[0], xt::all(), xt::range(4, 6)) == xt::view(l.blocks[0].k[3], xt::all(), xt::range(4, 6)));
    CHECK(xt::view(l.blocks[0].k[0], xt::all(), xt::range(0, 4)) != xt::view(l.blocks[0].k[3], xt::all(), xt::range(0, 4)));
    // top-k of 2: every query reads at most 2 keys, the 2 its head scores highest
    const Gpt<float> top = shaken_model(variant_config(variants[12].attention), 6);
    const GptForward<float> t = gpt_forward(top, {{1, 2, 3, 4, 5, 6}});
    for (std::size_t h = 0; h < 4; ++h)
        for (std::size_t i = 0; i < 6; ++i) {
            std::size_t read = 0;
            for (std::size_t j = 0; j < 6; ++j) read += t.blocks[0].weights[h](i, j) != 0.0f;
            CHECK(read == std::min<std::size_t>(i + 1, 2));
        }
}

TEST_CASE("gpt variants: a variant that does not fit the model is refused") {
    const auto refused = [](GptAttention a) { return fresh_gpt(variant_config(a), 1); };
    CHECK_THROWS_AS(refused({Mixer::softmax, 3, 0, 0, false, false}), InputError);  // 4 heads, 3 groups
    CHECK_THROWS_AS(refused({Mixer::softmax, 0, 7, 0, false, false}), InputError);  // a window past the context
    CHECK_THROWS_AS(refused({Mixer::softmax, 0, 0, 2, false, false}), InputError);  // sinks without a window
    CHECK_THROWS_AS(refused({Mixer::linear, 0, 2, 0, false, false}), InputError);   // a window on linear attention
    CHECK_THROWS_AS(refused({Mixer::delta, 0, 0, 0, true, false}), InputError);     // a sink logit on a state
    GptConfig odd{7, 6, 1, 2, 6};  // d_h = 3: no pairs to turn
    odd.attention.rotary = true;
    CHECK_THROWS_AS(fresh_gpt(odd, 1), InputError);
    CHECK_THROWS_AS(refused({Mixer::softmax, 2, 0, 0, false, false, 6}), InputError);  // MLA with groups
    CHECK_THROWS_AS(refused({Mixer::linear, 0, 0, 0, false, false, 6}), InputError);   // MLA on linear attention
    CHECK_THROWS_AS(refused({Mixer::delta, 0, 0, 0, false, false, 0, 2}), InputError);  // top-k of a state
    CHECK_THROWS_AS(refused({Mixer::softmax, 0, 0, 0, false, false, 0, 7}), InputError);  // past the context
    GptConfig narrow{7, 6, 1, 4, 8};  // d_h = 2: MLA's RoPE key of d_h/2 = 1 column has no pair
    narrow.attention.latent = 4;
    CHECK_THROWS_AS(fresh_gpt(narrow, 1), InputError);
}
