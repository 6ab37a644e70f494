// The copy task (common/copy_model/copy_task): its sequences repeat at the lags it states, the
// held-out stream continues where it says, the halves count what they say on a model whose
// predictions are known, and a short training run learns to copy with every mixer.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/copy_model/copy_task.hpp"

TEST_CASE("copy task: every sequence repeats its start at a lag in [shortest_lag, L]") {
    Random rng(2);
    const std::size_t half = 8, V = 5;
    CHECK(shortest_lag(half) == 4);
    CHECK(shortest_lag(1) == 1);
    for (const Tokens& s : repeated_sequences(rng, 200, V, half, shortest_lag(half))) {
        REQUIRE(s.size() == 2 * half);
        std::size_t lags = 0;  // the lags at which the whole sequence repeats itself
        for (std::size_t lag = shortest_lag(half); lag <= half; ++lag) {
            bool repeats = true;
            for (std::size_t i = lag; i < 2 * half; ++i) repeats = repeats && s[i] == s[i - lag];
            lags += repeats;
        }
        CHECK(lags >= 1);
        for (std::size_t t : s) CHECK(t < V);
    }
}

TEST_CASE("copy task: the held-out sequences repeat their first half, and `rest` continues their stream") {
    CopyTaskSettings s;
    s.seed = 3;
    Random rest(0);
    const std::vector<Tokens> held_out = held_out_sequences(s, &rest);
    REQUIRE(held_out.size() == held_out_count);
    for (const Tokens& t : held_out)
        for (std::size_t i = s.half_length; i < 2 * s.half_length; ++i) CHECK(t[i] == t[i - s.half_length]);
    Random again(2 * s.seed + 2);  // the same draws by hand, then one more number
    CHECK(repeated_sequences(again, held_out_count, s.vocabulary, s.half_length, s.half_length) == held_out);
    CHECK(rest.next_u64() == again.next_u64());
}

TEST_CASE("copy task: the halves of a model that is sure in the second half and uniform in the first") {
    const std::size_t half = 4, V = 6, n = 2 * half;
    const Tokens s = {1, 4, 2, 5, 1, 4, 2, 5};
    ModelForward<float> f;
    f.batch = 1, f.length = n;
    f.logits = xt::zeros<float>({n, V});
    for (std::size_t i = half; i + 1 < n; ++i) f.logits(i, s[i + 1]) = 100.0f;  // the copy, by a wide margin
    f.logits(half + 1, 0) = 200.0f;                                              // but one wrong prediction
    f.probs = f.logits;
    for (std::size_t i = 0; i < n; ++i) {  // softmax of each row
        double sum = 0;
        for (std::size_t v = 0; v < V; ++v) sum += std::exp(double(f.logits(i, v)) - 200.0);
        for (std::size_t v = 0; v < V; ++v) f.probs(i, v) = float(std::exp(double(f.logits(i, v)) - 200.0) / sum);
    }
    const Halves h = halves(f, {s}, half);
    CHECK(h.loss_first == doctest::Approx(std::log(double(V))));  // positions 0 … half − 2: uniform
    CHECK(h.accuracy_second == doctest::Approx(2.0 / 3.0));       // positions half … n − 2: 2 of 3 right
    CHECK(h.loss_second == doctest::Approx(100.0 / 3.0));         // the wrong one costs 100
}

TEST_CASE("copy task: a short run learns to copy, with every mixer") {
    CopyTaskSettings s;
    s.vocabulary = 8, s.half_length = 6, s.d_model = 16, s.steps = 600, s.log_every = 100;
    for (Mixer mixer : {Mixer::softmax, Mixer::linear, Mixer::delta, Mixer::gated_delta}) {
        s.mixer = mixer;
        CAPTURE(int(mixer));
        std::vector<int> logged;
        const TrainedModel t = train_copy_task(s, [&](int step, int, const LoggedStep&) { logged.push_back(step); });
        CHECK(logged == std::vector<int>{0, 100, 200, 300, 400, 500, 600});
        CHECK(t.curve.size() == logged.size());
        CHECK(t.trained.mixer == mixer);
        MESSAGE("mixer ", int(mixer), ": second half ", t.before.loss_second, " → ", t.after.loss_second,
                ", first half ", t.after.loss_first, " (ln V = ", std::log(double(s.vocabulary)), ")");
        CHECK(t.after.loss_second < t.before.loss_second);
        CHECK(t.after.loss_second < t.after.loss_first - 0.5);
    }
}
