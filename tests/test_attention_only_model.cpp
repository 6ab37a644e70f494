// The attention-only model against things computed another way: its hand-written backward
// pass against central finite differences in double for every mixer, on random small shapes
// (layers, heads, positions, ablated heads); the mixers' weights against their outputs; the
// delta rule on a case worked by hand (training on the copy task: test_copy_task.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/copy_model/attention_only_model.hpp"
#include "common/numbers/random.hpp"

namespace {

std::vector<Tokens> random_tokens(Random& rng, std::size_t count, std::size_t n, std::size_t vocabulary) {
    std::vector<Tokens> batch(count, Tokens(n));
    for (Tokens& s : batch)
        for (std::size_t& t : s) t = std::size_t(rng.uniform() * double(vocabulary));
    return batch;
}

// The largest relative difference between the backward pass and central differences
// (h = 1e-5, in double, extrapolated as chapter 16's check does) over every entry of every
// parameter matrix.
double worst_gradient_error(AttentionOnlyModel<double> m, const std::vector<Tokens>& batch,
                            const std::vector<bool>& ablated, AttentionOnlyModel<double>* gradient = nullptr) {
    Mat<double> d_logits;
    const ModelForward<double> f = model_forward(m, batch, ablated);
    next_token_loss(f, batch, &d_logits);
    AttentionOnlyModel<double> g = model_backward(m, batch, f, d_logits, ablated);
    const std::vector<Mat<double>*> analytic = parameters(g), entries = parameters(m);
    REQUIRE(analytic.size() == entries.size());
    const double h = 1e-5;
    double worst = 0;
    for (std::size_t p = 0; p < entries.size(); ++p)
        for (std::size_t i = 0; i < entries[p]->size(); ++i) {
            double& w = entries[p]->flat(i);
            const double saved = w;
            const auto central = [&](double step) {  // (loss(w + step) − loss(w − step)) / 2·step
                w = saved + step;
                const double plus = next_token_loss(model_forward(m, batch, ablated), batch);
                w = saved - step;
                const double minus = next_token_loss(model_forward(m, batch, ablated), batch);
                w = saved;
                return (plus - minus) / (2 * step);
            };
            // Richardson: the h² terms of D(h) and D(2h) cancel in (4·D(h) − D(2h)) / 3
            const double numeric = (4 * central(h) - central(2 * h)) / 3, a = analytic[p]->flat(i);
            worst = std::max(worst, std::abs(a - numeric) / std::max({std::abs(a), std::abs(numeric), 1e-4}));
        }
    if (gradient) *gradient = g;
    return worst;
}

std::string mixer_name(Mixer m) {
    return m == Mixer::softmax ? "softmax" : m == Mixer::linear ? "linear" : m == Mixer::delta ? "delta" : "gated_delta";
}

const std::vector<Mixer> every_mixer = {Mixer::softmax, Mixer::linear, Mixer::delta, Mixer::gated_delta};

}  // namespace

TEST_CASE("attention-only model: the backward pass equals central differences in double, for every mixer") {
    struct Case {
        std::size_t vocabulary, n, d_model, layers, heads;
        bool positions;
        std::vector<bool> ablated;
    };
    const std::vector<Case> cases = {{5, 6, 4, 2, 2, true, {}},          {7, 4, 6, 1, 3, true, {}},
                                     {4, 5, 4, 2, 1, false, {}},         {6, 7, 8, 2, 4, true, {}},
                                     {5, 6, 4, 2, 2, true, {false, true, false, false}},
                                     {4, 3, 8, 1, 1, true, {}},          {4, 3, 16, 1, 1, true, {}}};  // d_h 8, 16: the delta rule's fixed widths
    for (Mixer mixer : every_mixer) {
        double worst_of_mixer = 0;
        for (std::size_t c = 0; c < cases.size(); ++c) {
            const Case& k = cases[c];
            CAPTURE(mixer_name(mixer));
            CAPTURE(c);
            Random rng(100 + c);
            const std::vector<Tokens> batch = random_tokens(rng, 3, k.n, k.vocabulary);
            AttentionOnlyModel<double> g;
            const double worst = worst_gradient_error(
                in_double(random_model(k.vocabulary, k.n, k.d_model, k.layers, k.heads, k.positions, 7 + c, mixer)),
                batch, k.ablated, &g);
            CHECK(worst < 1e-6);
            worst_of_mixer = std::max(worst_of_mixer, worst);
            if (!k.ablated.empty()) CHECK(double(xt::amax(xt::abs(g.W_Q[1]))()) == 0.0);  // a zeroed head learns nothing
            if (!k.positions) CHECK(double(xt::amax(xt::abs(g.P))()) == 0.0);             // no positions, no gradient
        }
        MESSAGE(mixer_name(mixer), ": largest relative error ", worst_of_mixer);
    }
}


TEST_CASE("attention-only model: the weights are causal and each row sums to 1") {
    Random rng(3);
    const std::vector<Tokens> batch = random_tokens(rng, 2, 6, 5);
    const ModelForward<float> f = model_forward(random_model(5, 6, 8, 2, 2, true, 1), batch);
    for (const Mat<float>& A : f.weights)
        for (std::size_t r = 0; r < rows(A); ++r) {
            double sum = 0;
            for (std::size_t j = 0; j < cols(A); ++j) {
                sum += A(r, j);
                if (j > r % 6) CHECK(A(r, j) == 0.0f);
            }
            CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
        }
}

TEST_CASE("attention-only model: the random start has the spreads its header states") {
    const std::size_t d = 32, heads = 2;
    const AttentionOnlyModel<float> m = random_model(64, 64, d, 2, heads, true, 11);
    const auto spread = [](const Mat<float>& a) {
        double sum = 0, squares = 0;
        for (float x : a) sum += x, squares += double(x) * x;
        const double mean = sum / double(a.size());
        return std::sqrt(squares / double(a.size()) - mean * mean);
    };
    CHECK(spread(m.E) == doctest::Approx(1.0).epsilon(0.05));  // std 1 for E and P
    CHECK(spread(m.P) == doctest::Approx(1.0).epsilon(0.05));
    CHECK(spread(m.U) == doctest::Approx(1.0 / std::sqrt(double(d))).epsilon(0.05));  // 1/√d
    CHECK(spread(m.W_Q[0]) == doctest::Approx(1.0 / std::sqrt(double(d))).epsilon(0.15));
    CHECK(spread(m.W_O[0]) == doctest::Approx(1.0 / std::sqrt(double(d / heads))).epsilon(0.15));  // 1/√d_h
}

TEST_CASE("attention-only model: the loss stays exact where float probabilities underflow") {
    Random rng(21);
    const std::vector<Tokens> batch = random_tokens(rng, 2, 6, 5);
    AttentionOnlyModel<float> m = random_model(5, 6, 8, 2, 2, true, 3);
    m.U *= 2000.0f;  // logits thousands apart, as after a diverged run: most p underflow to 0 in float
    const ModelForward<float> f = model_forward(m, batch);
    long double expected = 0;  // −log softmax(logits)[next] by log-sum-exp in long double
    for (std::size_t b = 0; b < 2; ++b)
        for (std::size_t i = 0; i + 1 < 6; ++i) {
            const std::size_t r = b * 6 + i;
            long double largest = f.logits(r, 0), sum = 0;
            for (std::size_t v = 0; v < 5; ++v) largest = std::max(largest, (long double)f.logits(r, v));
            for (std::size_t v = 0; v < 5; ++v) sum += std::exp((long double)f.logits(r, v) - largest);
            expected += largest + std::log(sum) - (long double)f.logits(r, batch[b][i + 1]);
        }
    expected /= 10;
    const double loss = next_token_loss(f, batch);
    CHECK(std::isfinite(loss));
    CHECK(expected > 1000);  // more than −log of the smallest float (≈ 103) or of 1e-300 (≈ 691)
    CHECK(loss == doctest::Approx(double(expected)).epsilon(1e-6));
}

TEST_CASE("attention-only model: every mixer's weights give its output (z_i = Σ_j weights[i, j] v_j), causally") {
    Random rng(4);
    const std::vector<Tokens> batch = random_tokens(rng, 3, 7, 6);
    for (Mixer mixer : every_mixer) {
        CAPTURE(mixer_name(mixer));
        const ModelForward<double> f = model_forward(in_double(random_model(6, 7, 8, 2, 2, true, 2, mixer)), batch);
        const bool delta = mixer == Mixer::delta || mixer == Mixer::gated_delta;
        CHECK(f.states.size() == (delta ? 4u : 0u));
        CHECK(f.alpha.size() == (mixer == Mixer::gated_delta ? 4u : 0u));
        for (std::size_t k = 0; k < f.weights.size(); ++k) {
            const Mat<double>&A = f.weights[k], &V = f.V[k], &Z = f.Z[k];
            double worst = 0;
            for (std::size_t b = 0; b < 3; ++b)
                for (std::size_t i = 0; i < 7; ++i) {
                    for (std::size_t j = i + 1; j < 7; ++j) CHECK(A(b * 7 + i, j) == 0.0);
                    for (std::size_t c = 0; c < cols(V); ++c) {
                        double z = 0;
                        for (std::size_t j = 0; j <= i; ++j) z += A(b * 7 + i, j) * V(b * 7 + j, c);
                        worst = std::max(worst, std::abs(z - Z(b * 7 + i, c)));
                    }
                }
            CHECK(worst < 1e-12);  // for delta and gated: the state's recurrence against its unrolled form
        }
    }
}

TEST_CASE("attention-only model: a forward pass for the gradient alone leaves the delta rule's M out, nothing else") {
    Random rng(5);
    const std::vector<Tokens> batch = random_tokens(rng, 2, 6, 5);
    for (Mixer mixer : every_mixer)
        for (std::size_t d_model : {16, 32}) {  // d_h 8 and 16
            CAPTURE(mixer_name(mixer));
            const AttentionOnlyModel<float> m = random_model(5, 6, d_model, 2, 2, true, 3, mixer);
            const ModelForward<float> all = model_forward(m, batch), some = model_forward(m, batch, {}, Fill::for_gradient);
            const bool delta = mixer == Mixer::delta || mixer == Mixer::gated_delta;
            CHECK(some.weights[0].size() == (delta ? 0u : all.weights[0].size()));
            CHECK(some.logits == all.logits);  // to the bit
            const AttentionOnlyModel<float> g_all = model_backward(m, batch, all, next_token_gradient(all, batch));
            const AttentionOnlyModel<float> g_some = model_backward(m, batch, some, next_token_gradient(some, batch));
            CHECK(g_some.W_Q[3] == g_all.W_Q[3]);
            CHECK(g_some.E == g_all.E);
            // float's kernels (vectors along the state's rows at these widths) against double's loops
            const AttentionOnlyModel<double> m_double = in_double(m);
            const ModelForward<double> f_double = model_forward(m_double, batch);
            const AttentionOnlyModel<double> g_double =
                model_backward(m_double, batch, f_double, next_token_gradient(f_double, batch));
            for (std::size_t k = 0; k < 4; ++k) {
                const Mat<double> g_float = xt::cast<double>(g_all.W_Q[k]);
                CHECK(double(xt::amax(xt::abs(g_float - g_double.W_Q[k]))()) <
                      1e-5 * double(xt::amax(xt::abs(g_double.W_Q[k]))()) + 1e-9);
            }
        }
}

TEST_CASE("attention-only model: linear attention's weights are positive where seen and each row sums to 1") {
    Random rng(5);
    const std::vector<Tokens> batch = random_tokens(rng, 2, 6, 5);
    const ModelForward<float> f = model_forward(random_model(5, 6, 8, 2, 2, true, 1, Mixer::linear), batch);
    for (const Mat<float>& A : f.weights)
        for (std::size_t r = 0; r < rows(A); ++r) {
            double sum = 0;
            for (std::size_t j = 0; j <= r % 6; ++j) {
                CHECK(A(r, j) > 0.0f);
                sum += A(r, j);
            }
            CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
        }
}

namespace {

// One layer, one head, d = d_h = 8, tokens 0 … 3: x_t = E[token] + P[t] with E[token] the
// one-hot of the token in entries 0 … 3 and P[t] = (0, 0, 0, 0, v_t) in entries 4 … 7, so that
//   k_t = onehot(token_t) (orthonormal keys), v_t = P's row t, q_t = k_t except token 3,
//   whose query is token 0's key, and β_t = σ(40) = 1 exactly in double (α_t = σ(0) = 1/2).
AttentionOnlyModel<double> hand_model(Mixer mixer) {
    AttentionOnlyModel<double> m;
    m.layers = 1, m.heads = 1, m.learned_positions = true, m.mixer = mixer;
    m.E = xt::zeros<double>({4, 8}), m.P = xt::zeros<double>({4, 8});
    const double values[4][4] = {{1, 2, 3, 4}, {5, -1, 0, 2}, {-3, 1, 2, -2}, {2, 2, -1, 1}};
    Mat<double> W_Q = xt::zeros<double>({8, 8}), W_K = W_Q, W_V = W_Q;
    for (std::size_t t = 0; t < 4; ++t) {
        m.E(t, t) = 1;
        for (std::size_t c = 0; c < 4; ++c) m.P(t, 4 + c) = values[t][c];
        W_K(t, t) = 1, W_V(4 + t, t) = 1;
        W_Q(t, t == 3 ? 0 : t) = 1;
    }
    m.W_Q = {W_Q}, m.W_K = {W_K}, m.W_V = {W_V};
    m.W_O = {Mat<double>(xt::eye<double>(8))};
    m.U = xt::zeros<double>({8, 4});
    Mat<double> w_beta = xt::zeros<double>({8, 1});
    for (std::size_t t = 0; t < 4; ++t) w_beta(t, 0) = 40;
    m.W_beta = {w_beta};
    if (mixer == Mixer::gated_delta) m.W_alpha = {Mat<double>(xt::zeros<double>({8, 1}))}, m.b_alpha = {Mat<double>({{0.0}})};
    return m;
}

}  // namespace

TEST_CASE("attention-only model: the delta rule on orthonormal keys with β = 1, worked by hand") {
    // tokens 0, 1, 0, 3: write v_0 under k_0, v_1 under k_1, v_2 under k_0 again (it replaces v_0),
    // then v_3 under k_3 while reading k_0.
    const std::vector<Tokens> batch = {{0, 1, 0, 3}};
    const double v[4][4] = {{1, 2, 3, 4}, {5, -1, 0, 2}, {-3, 1, 2, -2}, {2, 2, -1, 1}};
    SUBCASE("delta: each read returns the latest value written under its key, exactly") {
        const ModelForward<double> f = model_forward(hand_model(Mixer::delta), batch);
        CHECK(f.beta[0](0, 0) == 1.0);
        const std::size_t read[4] = {0, 1, 2, 2};  // z_3 reads k_0, whose value is now v_2
        for (std::size_t t = 0; t < 4; ++t)
            for (std::size_t c = 0; c < 4; ++c) CHECK(f.Z[0](t, c) == v[read[t]][c]);
        const double last_row[4] = {0, 0, 1, 0};  // z_3 = v_2: the unrolled weights say so
        for (std::size_t j = 0; j < 4; ++j) CHECK(f.weights[0](3, j) == last_row[j]);
    }
    SUBCASE("gated delta with α = 1/2: the same writes, older values halved at every token") {
        const ModelForward<double> f = model_forward(hand_model(Mixer::gated_delta), batch);
        CHECK(f.alpha[0](0, 0) == 0.5);
        // S_1 = ½ k_0 v_0ᵀ + k_1 v_1ᵀ; S_2 = k_0 v_2ᵀ + ½ k_1 v_1ᵀ (v_2 replaces what k_0 held);
        // S_3 = ½ k_0 v_2ᵀ + ¼ k_1 v_1ᵀ + k_3 v_3ᵀ, read with k_0: ½ v_2
        const std::size_t read[4] = {0, 1, 2, 2};
        const double share[4] = {1, 1, 1, 0.5};
        for (std::size_t t = 0; t < 4; ++t)
            for (std::size_t c = 0; c < 4; ++c) CHECK(f.Z[0](t, c) == share[t] * v[read[t]][c]);
        CHECK(f.states[0](2, 1 * 8 + 0) == 0.5 * v[1][0]);  // S_2[k_1, 0] = ½ v_1[0]
        CHECK(f.weights[0](3, 2) == 0.5);
    }
}

TEST_CASE("attention-only model: the mixers draw the softmax model's numbers, then their gates") {
    const AttentionOnlyModel<float> s = random_model(6, 8, 8, 2, 2, true, 3);
    for (Mixer mixer : every_mixer) {
        CAPTURE(mixer_name(mixer));
        AttentionOnlyModel<float> m = random_model(6, 8, 8, 2, 2, true, 3, mixer);
        CHECK(m.mixer == mixer);
        bool same = m.E == s.E && m.P == s.P && m.U == s.U;
        for (std::size_t k = 0; k < 4; ++k)
            same = same && m.W_Q[k] == s.W_Q[k] && m.W_K[k] == s.W_K[k] && m.W_V[k] == s.W_V[k] && m.W_O[k] == s.W_O[k];
        CHECK(same);
        const std::size_t gates = mixer == Mixer::delta ? 1 : mixer == Mixer::gated_delta ? 3 : 0;
        CHECK(parameters(m).size() == 3 + 16 + 4 * gates);  // E, P, U, 4 per head, then the gates
        if (mixer == Mixer::gated_delta) CHECK(m.b_alpha[1](0, 0) == doctest::Approx(std::log(19.0)));
    }
}
