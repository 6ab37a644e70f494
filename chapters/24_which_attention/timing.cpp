#include "chapters/24_which_attention/timing.hpp"

#include <algorithm>
#include <chrono>

#include "common/gpt/gpt_decoding.hpp"
#include "common/gpt/gpt_training.hpp"

namespace {

double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> times) {
    const std::size_t middle = times.size() / 2;
    std::nth_element(times.begin(), times.begin() + std::ptrdiff_t(middle), times.end());
    return times[middle];
}

}  // namespace

VariantTimes time_variant(const TrainedVariant& v, std::size_t batch, std::size_t steps, std::size_t repeats,
                          std::size_t decodes) {
    Gpt<float> model = v.lm.trained.model;  // a copy: the steps change it
    const std::size_t T = model.config.context;
    VariantTimes t;
    // 1. training steps at the recipe's batch; the first (its buffers' first use) not counted
    GptTrainer trainer;
    Random rng(1);
    std::vector<Tokens> inputs, targets;
    random_batch(v.lm.train_ids(), batch, T, rng, inputs, targets);
    trainer.step(model, inputs, targets, 1e-4f);
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t s = 0; s < steps; ++s) trainer.step(model, inputs, targets, 1e-4f);
    t.ms_per_step = milliseconds_since(start) / double(steps);
    // 2. one window read: the median of the repeats
    const std::vector<Tokens> one{inputs[0]};
    std::vector<double> times;
    GptForward<float> forward;
    for (std::size_t r = 0; r < repeats; ++r) {
        const auto begin = std::chrono::steady_clock::now();
        gpt_forward_into(v.lm.trained.model, one, forward);
        times.push_back(milliseconds_since(begin));
    }
    t.ms_per_window = median(times);
    // 3. one token decoded after long_context others, through the variant's cache: each repeat
    //    decodes the same token from a copy of the same cache (the copy not timed)
    GptConfig c = model.config;
    c.context = long_context + 1;
    const Gpt<float> fresh = fresh_gpt(c, 1);
    const Tokens& text = v.lm.held_out_ids();  // the held-out tokens, read again from the start if too few
    GptCache cache = empty_cache(c);
    for (std::size_t i = 0; i < long_context; ++i) next_logits(fresh, cache, text[i % text.size()]);
    times.clear();
    for (std::size_t r = 0; r < decodes; ++r) {
        GptCache copy = cache;
        const auto begin = std::chrono::steady_clock::now();
        next_logits(fresh, copy, text[long_context % text.size()]);
        times.push_back(milliseconds_since(begin));
    }
    t.ms_per_token = median(times);
    return t;
}
