#include "common/language_model/recipe_flags.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/lesson/lesson.hpp"
#include "common/lesson/threads_option.hpp"
#include "common/machine/machine_memory.hpp"
#include "common/numbers/input_error.hpp"

namespace {

constexpr double slowest_training_hours = 4;
// A step's FLOPs a second on one core, a slow machine's: this one reaches about 70 GFLOP/s in a
// whole training step of the default recipe (2,400 steps of 1.4 GFLOP in about 50 s).
constexpr double assumed_flops = 3e10;

void require_reachable(const Recipe& r) {
    if (r.retrain && !r.checkpoint.empty())
        throw InputError("--train: not with --checkpoint (a checkpoint is read as it is, never trained)");
    const GptConfig& c = r.gpt.config;
    if (c.d_model % c.heads != 0)
        throw InputError(fmt::format("--heads {}: d_model = {} does not split into {} heads", c.heads, c.d_model, c.heads));
    const double d = double(c.d_model), T = double(c.context), L = double(c.layers), V = double(c.vocab);
    const double tokens = double(r.gpt.batch) * T;
    // forward and backward: 6 flops per parameter and token, and the attention's 12·L·T·d per token
    const double flops = tokens * (6.0 * (12.0 * L * d * d + V * d) + 12.0 * L * T * d);
    const double hours = flops * double(r.gpt.steps) / assumed_flops / 3600.0;
    if (hours > slowest_training_hours)
        throw InputError(fmt::format("--steps {}: this recipe would train for about {:.0f} hours on one core; "
                                     "at most {:.0f} (fewer steps, or a smaller model)",
                                     r.gpt.steps, hours, slowest_training_hours));
    // the activations the backward pass reads (per block ≈ 24·d + H·T numbers a token), the
    // logits twice, and the parameters four times (weights, gradient, AdamW's m and v)
    const double activations = tokens * (L * (24.0 * d + double(c.heads) * T) + 2.0 * V);
    const double parameters = 4.0 * (12.0 * L * d * d + (V + T) * d);
    require_memory("this recipe's training", std::uint64_t(4.0 * (activations + parameters)), memory_limit_bytes());
}

}  // namespace

void add_recipe_flags(Lesson& lesson, Recipe& r) {
    GptConfig& c = r.gpt.config;
    lesson.option("--tokenizer", r.tokenizer, "bpe (chapter 21's, learned on the training text) or char",
                  Choices{"bpe", "char"});
    lesson.option("--vocab", r.bpe_vocab, "symbols of the BPE vocabulary, characters included", Range{100, 1024});
    lesson.option("--layers", c.layers, "blocks L", Range{1, 12});
    lesson.option("--heads", c.heads, "heads H per block (they split d_model)", Range{1, 16});
    lesson.option("--d-model", c.d_model, "width d of the residual stream", Range{8, 768});
    lesson.option("--context", c.context, "positions T the model reads at once", Range{4, 1024});
    lesson.option("--batch", r.gpt.batch, "windows B of T tokens per step", Range{1, 128});
    lesson.option("--steps", r.gpt.steps, "AdamW steps", Range{1, 100000});
    lesson.option("--lr", r.gpt.learning_rate, "the peak learning rate (warmup 100 steps, cosine to a tenth)",
                  Range{1e-5, 0.1});
    lesson.option("--seed", r.gpt.seed, "seed of the first weights and of the batches", Range{0, 999999999});
    lesson.option("--log-every", r.log_every, "steps between held-out measurements", Range{1, 100000});
    lesson.option("--repeats", r.gpt.repeats,
                  "the share of training windows given a copy of a passage of their first half later on (0: the "
                  "plain book; 1 forms an induction head in chapter 23's recipe, measured)",
                  Range{0, 1});
    lesson.option("--corpus", r.corpus_path, "your own UTF-8 text instead of Moby-Dick", Text::path);
    lesson.option("--checkpoint", r.checkpoint, "read this trained model's folder instead of training", Text::path);
    lesson.flag("--train", r.retrain, "train again, even when a model of this recipe is kept");
    add_threads_option(lesson);
}

Corpus checked_recipe(Recipe& r) {
    Corpus corpus = checked_corpus(r);
    require_reachable(r);
    return corpus;
}

void check_block(std::size_t layer, const GptConfig& c) {
    if (layer >= c.layers)
        throw InputError(fmt::format("--layer {}: the model has {} block{} (0 … {})", layer, c.layers,
                                     c.layers == 1 ? "" : "s", c.layers - 1));
}

void check_head(std::size_t layer, std::size_t head, const GptConfig& c) {
    check_block(layer, c);
    if (head >= c.heads)
        throw InputError(fmt::format("--head {}: the model has {} head{} a block (0 … {})", head, c.heads,
                                     c.heads == 1 ? "" : "s", c.heads - 1));
}
