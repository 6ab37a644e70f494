#include "chapters/24_which_attention/checks.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/gpt/gpt_decoding.hpp"
#include "common/gpt/gpt_training.hpp"

namespace {

constexpr std::size_t fewest_steps_to_learn = 100;  // fewer: the loss may still sit at ln V

// One token at a time through the model's cache (gpt_decoding.hpp) over a window: the largest
// |logit − the full pass's| over the largest |logit|, and the floats block 0 keeps at the end.
double decoding_error(const Gpt<float>& model, const Tokens& window, std::size_t& kept) {
    const GptForward<float> full = gpt_forward(model, std::vector<Tokens>{window});
    GptCache cache = empty_cache(model.config);
    double worst = 0.0, largest = 1.0;
    for (std::size_t p = 0; p < window.size(); ++p) {
        const std::vector<float> logits = next_logits(model, cache, window[p]);
        for (std::size_t x = 0; x < logits.size(); ++x) {
            worst = std::max(worst, std::abs(double(logits[x]) - double(full.logits(p, x))));
            largest = std::max(largest, std::abs(double(full.logits(p, x))));
        }
    }
    kept = cached_floats(cache, 0);
    return worst / largest;
}

}  // namespace

void check_variants(SelfChecks& check, const TrainedVariants& t, const VariantReading& reading, const Flags& f) {
    double held_out_error = 0.0, position_error = 0.0, first_copy_error = 0.0, decoded_error = 0.0;
    bool counted = true, kept = true, cached = true, learned = true, same_start = true;
    for (const TrainedVariant& v : t.runs) {
        Gpt<float> model = v.lm.trained.model;
        const GptConfig& c = model.config;
        // the table's held-out loss against gpt_training.cpp's held_out_loss (another pass over the same windows)
        const double theirs = held_out_loss(model, v.lm.held_out_ids(), f.windows);
        held_out_error = std::max(held_out_error, std::abs(v.measures.held_out - theirs) / theirs);
        // the mean over the positions is the mean over every token
        double mean = 0.0;
        for (std::size_t i = 0; i < c.context; ++i) mean += v.measures.by_position(0, i) / double(c.context);
        position_error = std::max(position_error, std::abs(mean - v.measures.held_out) / v.measures.held_out);
        const double alone = passages_alone(model, v.lm.held_out_ids(), f.passages);
        first_copy_error = std::max(first_copy_error, std::abs(v.measures.first_copy - alone) / alone);
        std::size_t total = 0;
        for (const NamedParameter<float>& p : named_parameters(model)) total += p.tensor->size();
        counted = counted && total == parameter_count(c);
        const Tokens window(v.lm.held_out_ids().begin(), v.lm.held_out_ids().begin() + std::ptrdiff_t(c.context));
        kept = kept && kept_floats_seen(model, window) == kept_floats(c);
        std::size_t in_cache = 0;
        decoded_error = std::max(decoded_error, decoding_error(model, window, in_cache));
        cached = cached && in_cache == kept_floats(c);
        learned = learned && v.lm.trained.log.back().held_out < v.lm.trained.log.front().held_out;
        same_start = same_start && v.lm.trained.log.front().step == 0 && v.lm.trained.log.back().step == f.recipe.gpt.steps;
    }
    check.close("each held-out loss = gpt_training's held_out_loss on the same windows (relative)", held_out_error, 1e-9);
    // (the positions' means are kept in float: a relative rounding of 6e-8 each)
    check.close("each model's mean loss over the positions = its held-out loss (relative)", position_error, 1e-6);
    check.close("each first copy's loss = the same passages read alone, not doubled (relative; a token never "
                "reads a later one)", first_copy_error, 1e-5);
    check.that("each model's parameters, counted from its tensors, = the table's count", counted);
    check.that("what a layer keeps, read off a forward pass (the keys a query reads × the key and value "
               "columns, or each head's state), = the table's formula", kept);
    check.close("reading a window token by token through what it keeps (its cache or state), each model "
                "gives its full pass's logits (of the largest)", decoded_error, 1e-5);
    check.that("what a layer keeps, counted in that cache after T tokens, = the table's formula", cached);
    check.close(fmt::format("--variant {}: each head's output z_h = its weights · v_h, token by token (the delta "
                            "rules' state unrolled)", f.variant),
                reading.outputs_error(0, 0), 1e-4);
    check.that(fmt::format("every variant trained the same {} steps", f.recipe.gpt.steps), same_start);
    // the ranks against their definition, seed by seed: a variant ranked r has exactly r − 1
    // others each of whose seeds ended below each of its own
    bool ranked = true;
    const std::size_t K = rows(t.held_out_by_seed), N = cols(t.held_out_by_seed);
    for (std::size_t k = 0; k < K; ++k) {
        std::size_t below = 0;
        for (std::size_t j = 0; j < K; ++j) {
            bool every = j != k;
            for (std::size_t a = 0; a < N && every; ++a)
                for (std::size_t b = 0; b < N && every; ++b) every = t.held_out_by_seed(j, a) < t.held_out_by_seed(k, b);
            below += every ? 1 : 0;
        }
        ranked = ranked && std::size_t(t.spread.rank(k, 0)) == below + 1;
    }
    check.that(fmt::format("each rank = 1 + the variants each of whose {} seeds ended below each of its own (every "
                           "pair of seeds compared)", N),
               ranked);
    if (f.recipe.gpt.steps >= fewest_steps_to_learn) check.that("training lowered every variant's held-out loss", learned);
    else
        check.skip("training lowered every variant's held-out loss",
                   fmt::format("--steps {}: fewer than {}, the warmup's rate may not move it yet", f.recipe.gpt.steps,
                               fewest_steps_to_learn));
}
