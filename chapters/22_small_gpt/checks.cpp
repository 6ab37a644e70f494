#include "chapters/22_small_gpt/checks.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/gpt/gpt_sampling.hpp"
#include "common/lesson/attention_tolerance.hpp"
#include "common/reference/attention_by_loops.hpp"

namespace {

constexpr std::size_t fewest_steps_to_learn = 100;  // fewer: the loss may still sit at ln V

// Every head's weights recomputed from its own q and k by the reference (loops in double).
void check_heads(SelfChecks& check, const SentenceRead& s) {
    double error = 0.0, tolerance = 0.0, row_error = 0.0, above = 0.0;
    for (std::size_t m = 0; m < s.weights.size(); ++m) {
        const Matrix& A = s.weights[m];
        const AttentionByLoops loops = attention_by_loops(s.queries[m], s.keys[m], s.values[m], KeysSeen::causal());
        const double e = max_abs_difference(A, loops.weights);
        const double t = attention_tolerance(s.queries[m], s.keys[m], s.values[m]).weights;
        if (tolerance == 0.0 || std::isnan(e) || (!std::isnan(error) && e / t > error / tolerance)) error = e, tolerance = t;
        row_error = std::max(row_error, worst_row_sum_error(A));
        for (std::size_t i = 0; i < rows(A); ++i)
            for (std::size_t j = i + 1; j < cols(A); ++j) above = std::max(above, double(A(i, j)));
    }
    check.close("every head's weights = causal softmax(q·k/√d_h), as loops in double", error, tolerance);
    check.close("each head's rows sum to 1", row_error, 1e-5);
    check.that("no token attends to a later one (every weight above the diagonal is 0)", above == 0.0);
}

// The sentence's logits, from math.cpp's plain forward pass, against three other ways: the
// training's forward pass (common/gpt/gpt_model.cpp: fixed-order products), the same in double,
// and one token at a time through the KV cache.
void check_logits(SelfChecks& check, const Gpt<float>& model, const SentenceRead& s) {
    const std::size_t V = model.config.vocab;
    double largest = 0.0, training_error = 0.0, double_error = 0.0, cache_error = 0.0, weights_error = 0.0;
    const std::vector<Tokens> batch{s.ids};
    const GptForward<float> training = gpt_forward(model, batch);
    const GptForward<double> exact = gpt_forward(gpt_in_double(model), batch);
    GptCache cache = empty_cache(model.config);
    for (std::size_t i = 0; i < s.ids.size(); ++i) {
        const std::vector<float> one = next_logits(model, cache, s.ids[i]);
        for (std::size_t v = 0; v < V; ++v) {
            const double mine = s.logits(i, v);
            largest = std::max(largest, std::abs(mine));
            training_error = std::max(training_error, std::abs(double(training.logits(i, v)) - mine));
            double_error = std::max(double_error, std::abs(exact.logits(i, v) - mine));
            cache_error = std::max(cache_error, std::abs(double(one[v]) - mine));
        }
    }
    for (std::size_t l = 0; l < training.blocks.size(); ++l)
        for (std::size_t h = 0; h < training.blocks[l].weights.size(); ++h)
            weights_error = std::max(weights_error, max_abs_difference(s.weights[l * s.heads + h], training.blocks[l].weights[h]));
    const double scale = std::max(largest, 1.0);
    check.close("logits = the training's forward pass (common/gpt/gpt_model.cpp; relative)", training_error / scale, 1e-5);
    check.close("every head's weights = the training's forward pass", weights_error, 1e-5);
    check.close("logits = the forward pass in double (relative)", double_error / scale, 1e-4);
    check.close("logits = the tokens decoded one at a time through the KV cache (relative)", cache_error / scale, 1e-5);
}

// The five predictions: the first is the largest logit, and their probabilities are the softmax.
void check_predictions(SelfChecks& check, const SentenceRead& s) {
    const std::size_t V = cols(s.logits);
    double error = 0.0;
    bool first_is_largest = true;
    for (std::size_t i = 0; i < s.ids.size(); ++i) {
        const float* row = s.logits.data() + i * V;
        const double top = *std::max_element(row, row + V);
        double total = 0.0;  // Σ_v exp(ℓ_v − max), summed from the smallest id up
        for (std::size_t v = 0; v < V; ++v) total += std::exp(double(row[v]) - top);
        first_is_largest = first_is_largest && row[std::size_t(s.top_ids(i, 0))] == top;
        for (std::size_t j = 0; j < cols(s.top_ids); ++j) {
            const double p = std::exp(double(row[std::size_t(s.top_ids(i, j))]) - top) / total;
            error = std::max(error, std::abs(p - double(s.top_probabilities(i, j))));
        }
    }
    check.that("the most likely next token is the largest logit, after every token", first_is_largest);
    check.close("the five probabilities = exp(logit − max) / Σ exp(logit − max)", error, 1e-6);
}

}  // namespace

void check_language_model(SelfChecks& check, const LanguageModel& lm, const SentenceRead& s,
                          const std::u32string& sentence) {
    const Tokenizer& t = lm.trained.tokenizer;
    const Tokens ids = model_tokens(t, sentence);
    const TokenIds as_ids(ids.begin(), ids.end());
    check.that("decode(encode(your sentence)) = your sentence", decode(t, as_ids) == sentence);
    check_heads(check, s);
    check_logits(check, lm.trained.model, s);
    check_predictions(check, s);
    const std::vector<LoggedLoss>& log = lm.trained.log;
    const double lnV = std::log(double(t.size()));
    // Fresh weights are N(0, 0.02): logits = ln_f(x) · wteᵀ have a spread of about 0.02·√d, and
    // the loss is ln V + that spread² / 2 (ln V + 0.03 at d = 128; + 0.1 at d = 512).
    check.close("the untrained model's held-out loss ≈ ln V (relative)", std::abs(log.front().held_out - lnV) / lnV, 0.05);
    if (log.back().step >= fewest_steps_to_learn)
        check.that(fmt::format("training lowered the held-out loss ({:.3f} → {:.3f})", log.front().held_out,
                               log.back().held_out),
                   log.back().held_out < log.front().held_out);
    else
        check.skip("training lowered the held-out loss",
                   fmt::format("{} steps: fewer than {}, the loss may not have moved yet", log.back().step,
                               fewest_steps_to_learn));
    const double now = held_out_loss(lm.trained.model, lm.held_out_ids());
    check.close(fmt::format("the model's held-out loss now = the one logged after training ({:.4f}, relative)",
                            log.back().held_out),
                std::abs(now - log.back().held_out) / log.back().held_out, 1e-6);
}

void check_writing(SelfChecks& check, const LanguageModel& lm, const Writing& w, double temperature, std::size_t top_k,
                   double top_p, std::uint64_t seed) {
    const Gpt<float>& model = lm.trained.model;
    const std::size_t L = model.config.layers, H = model.config.heads;
    double logits = 0.0, weights = 0.0, written_p = 0.0;
    bool drawable = true;
    Tokens text = w.prompt;
    for (std::size_t t = 0; t < w.written.size(); ++t) {
        // before token t: the full pass over the text so far, its last row
        const GptForward<float> before = gpt_forward(model, {text});
        const std::size_t V = model.config.vocab, last = text.size() - 1;
        double largest = 1.0, error = 0.0;
        for (std::size_t v = 0; v < V; ++v) {
            largest = std::max(largest, std::abs(double(before.logits(last, v))));
            error = std::max(error, std::abs(double(before.logits(last, v)) - double(w.logits[t][v])));
        }
        logits = std::max(logits, error / largest);
        // the written token's p, as a softmax in double of the full pass's logits; its q above 0
        double top = double(before.logits(last, 0)), sum = 0.0;
        for (std::size_t v = 0; v < V; ++v) top = std::max(top, double(before.logits(last, v)));
        for (std::size_t v = 0; v < V; ++v) sum += std::exp(double(before.logits(last, v)) - top);
        const double p = std::exp(double(before.logits(last, w.written[t])) - top) / sum;
        written_p = std::max(written_p, std::abs(p - double(w.written_odds(t, 0))));
        drawable = drawable && w.written_odds(t, 1) > 0.0f;
        text.push_back(w.written[t]);
        const GptForward<float> after = gpt_forward(model, {text});
        for (std::size_t k = 0; k < L * H; ++k)
            for (std::size_t j = 0; j < text.size(); ++j)
                weights = std::max(weights, std::abs(double(after.blocks[k / H].weights[k % H](text.size() - 1, j)) -
                                                     double(w.attention[k](t, j))));
    }
    check.close("writing: the cache's logits before each token = the full forward pass's (relative)", logits, 1e-5);
    check.close("writing: each new token's attention, read from the cache = the full pass's last row, every head",
                weights, 1e-5);
    check.close("writing: each written token's p = softmax of the full pass's logits, in double", written_p, 1e-5);
    check.that("writing: each written token had q > 0 (outside the top k or the top p, none is drawn)", drawable);
    const Tokens again = generate(model, w.prompt, w.written.size(), temperature, top_k, seed, top_p);
    check.that("writing: the tokens = generate()'s, the samples' function, with the same seed", again == w.written);
}
