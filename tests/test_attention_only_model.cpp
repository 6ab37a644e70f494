// The attention-only model's hand-written backward pass against central finite
// differences in double, on random small shapes (layers, heads, positions, ablated
// heads), and a short Adam run that learns to copy a repeated half.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/math/adam.hpp"
#include "common/math/attention_only_model.hpp"
#include "common/math/random.hpp"

namespace {

std::vector<Tokens> random_tokens(Random& rng, std::size_t count, std::size_t n, std::size_t vocabulary) {
    std::vector<Tokens> batch(count, Tokens(n));
    for (Tokens& s : batch)
        for (std::size_t& t : s) t = std::size_t(rng.uniform() * double(vocabulary));
    return batch;
}

// Sequences of 2·half tokens whose second half repeats the first.
std::vector<Tokens> repeated(Random& rng, std::size_t count, std::size_t half, std::size_t vocabulary) {
    std::vector<Tokens> batch = random_tokens(rng, count, 2 * half, vocabulary);
    for (Tokens& s : batch)
        for (std::size_t i = half; i < 2 * half; ++i) s[i] = s[i - half];
    return batch;
}

// The mean loss of the predictions made in positions [from, to) of every sequence.
double loss_between(const ModelForward<float>& f, const std::vector<Tokens>& batch, std::size_t from, std::size_t to) {
    double sum = 0;
    for (std::size_t b = 0; b < f.batch; ++b)
        for (std::size_t i = from; i < to; ++i) sum -= std::log(double(f.probs(b * f.length + i, batch[b][i + 1])));
    return sum / double(f.batch * (to - from));
}

}  // namespace

TEST_CASE("attention-only model: the backward pass equals central differences in double") {
    struct Case {
        std::size_t vocabulary, n, d_model, layers, heads;
        bool positions;
        std::vector<bool> ablated;
    };
    const std::vector<Case> cases = {{5, 6, 4, 2, 2, true, {}},          {7, 4, 6, 1, 3, true, {}},
                                     {4, 5, 4, 2, 1, false, {}},         {6, 7, 8, 2, 4, true, {}},
                                     {5, 6, 4, 2, 2, true, {false, true, false, false}}};
    for (std::size_t c = 0; c < cases.size(); ++c) {
        const Case& k = cases[c];
        CAPTURE(c);
        Random rng(100 + c);
        const std::vector<Tokens> batch = random_tokens(rng, 3, k.n, k.vocabulary);
        AttentionOnlyModel<double> m =
            in_double(random_model(k.vocabulary, k.n, k.d_model, k.layers, k.heads, k.positions, 7 + c));
        Mat<double> d_logits;
        const ModelForward<double> f = model_forward(m, batch, k.ablated);
        next_token_loss(f, batch, &d_logits);
        AttentionOnlyModel<double> g = model_backward(m, batch, f, d_logits, k.ablated);
        const std::vector<Mat<double>*> analytic = parameters(g), entries = parameters(m);
        REQUIRE(analytic.size() == entries.size());
        const double h = 1e-5;
        double worst = 0;
        for (std::size_t p = 0; p < entries.size(); ++p)
            for (std::size_t i = 0; i < entries[p]->size(); ++i) {
                double& w = entries[p]->flat(i);
                const double saved = w;
                w = saved + h;
                const double plus = next_token_loss(model_forward(m, batch, k.ablated), batch);
                w = saved - h;
                const double minus = next_token_loss(model_forward(m, batch, k.ablated), batch);
                w = saved;
                const double numeric = (plus - minus) / (2 * h), a = analytic[p]->flat(i);
                worst = std::max(worst, std::abs(a - numeric) / std::max({std::abs(a), std::abs(numeric), 1e-4}));
            }
        CHECK(worst < 1e-6);
        if (!k.ablated.empty()) CHECK(double(xt::amax(xt::abs(g.W_Q[1]))()) == 0.0);  // a zeroed head learns nothing
        if (!k.positions) CHECK(double(xt::amax(xt::abs(g.P))()) == 0.0);             // no positions, no gradient
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

TEST_CASE("attention-only model: a short Adam run lowers the second half's loss below the first's") {
    const std::size_t V = 8, half = 6;
    AttentionOnlyModel<float> m = random_model(V, 2 * half, 16, 2, 2, true, 5);
    Random rng(9);
    const std::vector<Tokens> held_out = repeated(rng, 32, half, V);
    const ModelForward<float> start = model_forward(m, held_out);
    const double second_before = loss_between(start, held_out, half, 2 * half - 1);
    Adam adam(1e-2f);
    const std::vector<Mat<float>*> weights = parameters(m);
    for (int step = 0; step < 300; ++step) {
        const std::vector<Tokens> batch = repeated(rng, 16, half, V);
        Mat<float> d_logits;
        const ModelForward<float> f = model_forward(m, batch);
        next_token_loss(f, batch, &d_logits);
        AttentionOnlyModel<float> g = model_backward(m, batch, f, d_logits);
        const std::vector<Mat<float>*> grads = parameters(g);
        adam.step(weights, std::vector<const Matrix*>(grads.begin(), grads.end()));
    }
    const ModelForward<float> end = model_forward(m, held_out);
    const double first = loss_between(end, held_out, 0, half - 1);
    const double second = loss_between(end, held_out, half, 2 * half - 1);
    MESSAGE("second half ", second_before, " → ", second, ", first half ", first,
            " (ln V = ", std::log(double(V)), ")");
    CHECK(second < second_before);
    CHECK(second < first - 0.5);
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
