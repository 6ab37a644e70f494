// Training a GPT on token ids (common/gpt/gpt_training.hpp): the batches are windows of the text
// with their targets one token later; the held-out loss is the mean over every whole window,
// however many windows go through the model at once; a text that repeats is learned.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "common/gpt/gpt_training.hpp"
#include "common/numbers/input_error.hpp"

TEST_CASE("random batches are windows of the text, the targets one token later") {
    Tokens ids(50);
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = i;  // token = position: the window shows its start
    Random rng(3);
    std::vector<Tokens> inputs, targets;
    random_batch(ids, 400, 8, rng, inputs, targets);  // 42 starts: each drawn, almost surely
    REQUIRE(inputs.size() == 400);
    bool first_seen = false, last_seen = false;
    for (std::size_t b = 0; b < inputs.size(); ++b)
        for (std::size_t i = 0; i < 8; ++i) {
            CHECK(inputs[b][i] == inputs[b][0] + i);
            CHECK(targets[b][i] == inputs[b][i] + 1);
            first_seen |= inputs[b][0] == 0, last_seen |= targets[b][7] == 49;
        }
    CHECK(first_seen);
    CHECK(last_seen);
    CHECK_THROWS_AS(random_batch(Tokens(8), 1, 8, rng, inputs, targets), InputError);
}

TEST_CASE("with repeats, that share of the windows copies a passage of its first half later on") {
    Tokens ids(5000);
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = i;  // no id twice: a copy can only be the rule's
    const std::size_t T = 32, half = (T + 1) / 2, shortest = T / 8;
    for (const double share : {0.0, 0.5, 1.0}) {
        INFO("share ", share);
        Random rng(7), plain_rng(7);
        std::vector<Tokens> inputs, targets, plain_inputs, plain_targets;
        random_batch(ids, 400, T, rng, inputs, targets, share);
        random_batch(ids, 400, T, plain_rng, plain_inputs, plain_targets);
        if (share == 0.0) CHECK(inputs == plain_inputs);  // no draw for the repeats: the plain book's batches
        std::size_t copied = 0;
        for (std::size_t b = 0; b < inputs.size(); ++b) {
            Tokens w = inputs[b];  // the window's T + 1 ids
            w.push_back(targets[b].back());
            for (std::size_t i = 0; i < T; ++i)
                if (i + 1 < T) CHECK(targets[b][i] == inputs[b][i + 1]);
            // where w stops counting up, a passage of its first half starts again, then it goes on
            std::size_t c = 1;
            while (c < w.size() && w[c] == w[c - 1] + 1) ++c;
            if (c == w.size()) continue;  // no copy in this window
            ++copied;
            const std::size_t a = w[c] - w[0];  // where the copy comes from
            std::size_t m = 0;
            while (c + m < w.size() && w[c + m] == w[a + m]) ++m;
            // the copy ends at the window's end or where the window's own ids resume
            const bool resumes = c + m == w.size() || w[c + m] == w[0] + c + m;
            CHECK(resumes);
            CHECK(c >= half);
            CHECK(a + m <= half);
            CHECK(m >= shortest);  // at least T/8 (a copy may run into ids that happen to match: never here)
        }
        if (share == 0.0) CHECK(copied == 0);
        if (share == 1.0) CHECK(copied == inputs.size());
        if (share == 0.5) CHECK((copied > 160 && copied < 240));
    }
}

TEST_CASE("the held-out loss is the mean over whole windows, in one pass or many, spread when few") {
    const GptConfig config{9, 6, 1, 2, 8};
    const Gpt<float> m = fresh_gpt(config, 4);
    Tokens ids(40);  // (40 − 1) / 6 = 6 whole windows
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = (i * 7 + 3) % 9;
    double by_window = 0;
    for (std::size_t w = 0; w < 6; ++w) {
        const Tokens in(ids.begin() + std::ptrdiff_t(w * 6), ids.begin() + std::ptrdiff_t(w * 6 + 6));
        const Tokens out(ids.begin() + std::ptrdiff_t(w * 6 + 1), ids.begin() + std::ptrdiff_t(w * 6 + 7));
        by_window += gpt_loss(gpt_forward(m, std::vector<Tokens>{in}), std::vector<Tokens>{out}) / 6;
    }
    CHECK(held_out_loss(m, ids, 200, 4) == doctest::Approx(by_window).epsilon(1e-6));
    CHECK(held_out_loss(m, ids, 200, 1) == doctest::Approx(by_window).epsilon(1e-6));
    // at most 3 of the 6 windows: windows 0, 2 and 4
    double spread = 0;
    for (std::size_t w : {0, 2, 4}) {
        const Tokens in(ids.begin() + std::ptrdiff_t(w * 6), ids.begin() + std::ptrdiff_t(w * 6 + 6));
        const Tokens out(ids.begin() + std::ptrdiff_t(w * 6 + 1), ids.begin() + std::ptrdiff_t(w * 6 + 7));
        spread += gpt_loss(gpt_forward(m, std::vector<Tokens>{in}), std::vector<Tokens>{out}) / 3;
    }
    CHECK(held_out_loss(m, ids, 3, 2) == doctest::Approx(spread).epsilon(1e-6));
    CHECK(by_window == doctest::Approx(std::log(9.0)).epsilon(0.01));  // a fresh model is near chance
}

TEST_CASE("a text that repeats is learned: the held-out loss falls far below chance") {
    GptRecipe r;
    r.config = {5, 8, 1, 2, 16};
    r.batch = 4, r.steps = 150, r.warmup = 10, r.learning_rate = 1e-2f;
    Tokens text(200);
    for (std::size_t i = 0; i < text.size(); ++i) text[i] = (i % 5 == 4) ? 0 : (i % 5);  // 0 1 2 3 0 0 1 2 3 0 …
    Gpt<float> m = fresh_gpt(r.config, 1);
    std::size_t last_step = 0;
    const std::vector<LoggedLoss> log = train_gpt(m, r, text, text, 50, [&](std::size_t s, double) { last_step = s; });
    CHECK(last_step == 150);
    REQUIRE(log.size() == 4);  // steps 0, 50, 100, 150
    CHECK(log[0].held_out == doctest::Approx(std::log(5.0)).epsilon(0.02));
    CHECK(log.back().held_out < 0.5);
    CHECK(log.back().step == 150);
}
