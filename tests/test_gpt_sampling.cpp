// Sampling from a GPT (common/gpt/gpt_sampling.hpp): the KV cache's logits against the full
// forward pass (gpt_forward) at every position; the sampling probabilities against a softmax in
// double; generation past the context against a slow loop that recomputes each window.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/gpt/gpt_sampling.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/random.hpp"
#include "tests/shaken_gpt.hpp"

namespace {

// The last row of the full forward pass over `window`.
std::vector<float> last_logits(const Gpt<float>& m, const Tokens& window) {
    const GptForward<float> f = gpt_forward(m, std::vector<Tokens>{window});
    const std::size_t V = m.config.vocab, last = window.size() - 1;
    return std::vector<float>(f.logits.data() + last * V, f.logits.data() + (last + 1) * V);
}

}  // namespace

TEST_CASE("the KV cache gives the full forward pass's logits at every position") {
    const GptConfig config{11, 9, 2, 3, 12};  // V, T, L, H, d
    const Gpt<float> m = shaken_gpt(config, 3);
    Random rng(5);
    Tokens text(config.context);
    for (std::size_t& t : text) t = std::size_t(rng.uniform() * double(config.vocab));
    const GptForward<float> full = gpt_forward(m, std::vector<Tokens>{text});
    GptCache cache = empty_cache(config);
    double worst = 0, largest = 0;
    for (std::size_t p = 0; p < text.size(); ++p) {
        const std::vector<float> logits = next_logits(m, cache, text[p]);
        for (std::size_t v = 0; v < config.vocab; ++v) {
            worst = std::max(worst, std::abs(double(logits[v]) - double(full.logits(p, v))));
            largest = std::max(largest, std::abs(double(full.logits(p, v))));
        }
    }
    CHECK(largest > 1.0);
    CHECK(worst <= 1e-5 * largest);
    CHECK(cache.length == config.context);
    CHECK_THROWS_AS(next_logits(m, cache, 0), InputError);  // full
}

TEST_CASE("sampling probabilities: softmax of the top k at temperature τ") {
    const std::vector<float> logits{1.0f, 3.0f, -2.0f, 3.0f, 0.5f};
    SUBCASE("all tokens at τ = 1 are the softmax") {
        const std::vector<double> p = sampling_probabilities(logits, 1.0, 0);
        double total = 0;
        for (float l : logits) total += std::exp(double(l));
        for (std::size_t j = 0; j < logits.size(); ++j) CHECK(p[j] == doctest::Approx(std::exp(double(logits[j])) / total).epsilon(1e-12));
    }
    SUBCASE("top 2 keeps the two largest (a tie: both 3.0), halving between them") {
        const std::vector<double> p = sampling_probabilities(logits, 0.7, 2);
        CHECK(p == std::vector<double>{0, 0.5, 0, 0.5, 0});
    }
    SUBCASE("top 1 is greedy, its tie going to the smaller id") {
        CHECK(sample_token(logits, 1.0, 1, 0.999) == 1);
    }
    SUBCASE("a low temperature sharpens, a high one flattens") {
        CHECK(sampling_probabilities(logits, 0.1, 0)[4] < 1e-10);
        CHECK(sampling_probabilities(logits, 100.0, 0)[2] > 0.18);
    }
    SUBCASE("draws fall in proportion to the probabilities") {
        const std::vector<double> p = sampling_probabilities(logits, 1.0, 3);
        std::vector<double> counted(logits.size(), 0);
        const int draws = 100000;
        for (int i = 0; i < draws; ++i) counted[sample_token(logits, 1.0, 3, (i + 0.5) / draws)] += 1.0 / draws;
        for (std::size_t j = 0; j < logits.size(); ++j) CHECK(counted[j] == doctest::Approx(p[j]).epsilon(1e-4));
    }
    SUBCASE("top p keeps the fewest of the largest whose probabilities reach p, rescaled") {
        const std::vector<float> four{3.0f, 2.0f, 1.0f, 0.0f};
        const double e3 = std::exp(3.0), e2 = std::exp(2.0), all = e3 + e2 + std::exp(1.0) + 1.0;
        REQUIRE(e3 / all < 0.8);
        REQUIRE((e3 + e2) / all >= 0.8);  // so p = 0.8 keeps the first two
        const std::vector<double> p = sampling_probabilities(four, 1.0, 0, 0.8);
        CHECK(p[0] == doctest::Approx(e3 / (e3 + e2)).epsilon(1e-12));
        CHECK(p[1] == doctest::Approx(e2 / (e3 + e2)).epsilon(1e-12));
        CHECK((p[2] == 0.0 && p[3] == 0.0));
        CHECK(sampling_probabilities(four, 1.0, 0, 0.01) == std::vector<double>{1, 0, 0, 0});  // always one
        CHECK(sampling_probabilities(four, 1.0, 0, 1.0)[3] > 0.0);                             // 1: every token
        CHECK(sample_token(four, 1.0, 0, 0.9999, 0.8) == 1);  // a draw past the nucleus's share stays in it
        CHECK_THROWS_AS(sampling_probabilities(four, 1.0, 0, 0.0), InputError);
        CHECK_THROWS_AS(sampling_probabilities(four, 1.0, 0, 1.5), InputError);
    }
    CHECK_THROWS_AS(sampling_probabilities(logits, 0.0, 0), InputError);
}

TEST_CASE("generation past the context equals recomputing each window from scratch") {
    const GptConfig config{13, 6, 2, 2, 8};
    const Gpt<float> m = shaken_gpt(config, 11);
    const Tokens prompt{3, 1, 4};
    const std::size_t count = 20;  // the cache fills and is rebuilt from the last T/2 tokens, three times
    const std::vector<std::size_t> fast = generate(m, prompt, count, 1.0, 1, 42);
    // the slow way: the window starts at 0 and jumps to the last T/2 tokens when it overflows
    Tokens text = prompt;
    std::size_t start = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const std::vector<float> logits = last_logits(m, Tokens(text.begin() + std::ptrdiff_t(start), text.end()));
        text.push_back(std::size_t(std::max_element(logits.begin(), logits.end()) - logits.begin()));
        if (text.size() - start > config.context) start = text.size() - config.context / 2;
    }
    CHECK(fast == Tokens(text.begin() + 3, text.end()));
    CHECK_THROWS_AS(generate(m, Tokens{}, 5, 1.0, 0, 1), InputError);
}
