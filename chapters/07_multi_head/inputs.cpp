#include "chapters/07_multi_head/inputs.hpp"

#include <fmt/format.h>

#include "common/inputs/sequence.hpp"
#include "common/language_model/model_sentence.hpp"
#include "common/language_model/sentence_option.hpp"
#include "common/lesson/lesson.hpp"
#include "common/numbers/input_error.hpp"

const std::string default_sentence = "the cat sat on the mat";

void add_flags(Lesson& lesson, Flags& flags) {
    lesson.option("--heads", flags.h, "h, the number of heads; must divide d_model", Range{1, 64});
    lesson.option("--d-model", flags.d_model, "d_model, the width of the embeddings, without --input", Range{1, 512});
    lesson.option("--seed", flags.seed, "seed of the random embeddings and weights");
    lesson.option("--layer", flags.layer,
                  "with --text: the trained model's layer whose W_Q, W_K, W_V, W_O serve (its heads' slices), "
                  "read by its ln_1 of the embeddings",
                  Range{0, double(default_model_config().layers - 1)});
}

namespace {

void require_heads_divide(std::size_t width, std::size_t h, const SequenceSource& input) {
    if (width % h == 0) return;
    throw InputError(fmt::format(
        "{}: each head gets d_model / h columns, so h must divide d_model",
        input.is_default()   ? fmt::format("--d-model {} is not divisible by --heads {}", width, h)
        : input.text.empty() ? fmt::format("--heads {}: the width of --input {} ({}) is not divisible by {}", h,
                                           input.input, width, h)
                             : fmt::format("--heads {}: the model's width ({}) is not divisible by {}", h, width, h)));
}

}  // namespace

Inputs the_inputs(const SequenceSource& input, Flags flags, Given given) {
    // Every flag is checked before the model is read (or trained).
    check_layer_flag(flags.layer, given.layer, !input.text.empty());
    // A sentence is read by the trained model's layer (--layer, 0 unless given), with its heads.
    const bool learned = !input.text.empty();
    if (learned) {
        const std::size_t heads = default_model_config().heads;
        if (given.heads && flags.h != heads)
            throw InputError(fmt::format("--heads {}: with --text, the heads are the model's {}", flags.h, heads));
        flags.h = heads;
    }
    Random random(flags.seed);
    Inputs in;
    in.h = flags.h;
    if (!learned) {
        in.seq = random_or_input_sequence(input.input, default_sentence, flags.d_model, given.d_model, random);
        require_heads_divide(cols(in.seq.X), flags.h, input);
        in.W = MultiHeadWeights{random_attention_weights(cols(in.seq.X), flags.h, flags.h, random)};
        return in;
    }
    check_model_width(flags.d_model, given.d_model);
    LayerInput layer = layer_input(input.text, flags.layer, input.listing_only);
    require_heads_divide(cols(layer.seq.X), flags.h, input);
    in.seq = std::move(layer.seq);
    if (input.listing_only) {  // --list-steps reads no model's weights
        in.W = MultiHeadWeights{random_attention_weights(cols(in.seq.X), flags.h, flags.h, random)};
        return in;
    }
    in.W = MultiHeadWeights{{layer.W.W_Q, layer.W.W_K, layer.W.W_V, layer.W.W_O}};
    in.learned = true;
    return in;
}
