#include "chapters/12_transformer_block/inputs.hpp"

#include <utility>

#include <fmt/format.h>

#include "common/inputs/sequence.hpp"
#include "common/language_model/sentence_option.hpp"
#include "common/lesson/lesson.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/random.hpp"

void add_flags(Lesson& lesson, Flags& f) {
    lesson.option("--heads", f.heads, "h: attention heads; must divide d_model (10 for the default sentence)",
                  Range{1, 64});
    lesson.option("--seed", f.seed, "the seed of the random weights");
    lesson.flag("--pre-norm", f.pre_norm, "x + Sublayer(LN(x)), as GPT-2 (the default)");
    lesson.flag("--post-norm", f.post_norm, "LN(x + Sublayer(x)), as the 2017 paper").excludes("--pre-norm");
    lesson.option("--init", f.init,
                  "how the weight matrices are drawn: xavier N(0, 2/(fan_in+fan_out)), gpt2 N(0, 0.02²)",
                  Choices{"xavier", "gpt2"});
    lesson.option("--activation", f.activation, "the FFN's non-linearity: relu (the paper) or gelu (GPT-2)",
                  Choices{"relu", "gelu"});
}

BlockInputs load_inputs(const SequenceSource& input, const Flags& flags) {
    Sequence seq = load_sequence(input, default_sentence);
    const std::size_t d_model = cols(seq.X);
    if (d_model % flags.heads != 0)
        throw InputError(fmt::format("--heads {}: must divide d_model = {}{} (each head gets d_model / h columns)",
                                     flags.heads, d_model,
                                     input.is_default()   ? ""
                                     : input.text.empty() ? ", the width of " + input.input
                                                          : ", the width of the model's embeddings"));
    const std::size_t d_ff = 4 * d_model;  // the paper and GPT-2 widen 4 times
    Random random(flags.seed);
    BlockParams params =
        random_block_params(random, d_model, flags.heads, d_ff, flags.init == "gpt2" ? Init::gpt2 : Init::xavier,
                            flags.activation == "gelu" ? Activation::gelu : Activation::relu);
    return {std::move(seq), std::move(params), flags.post_norm ? NormPlacement::post : NormPlacement::pre};
}
