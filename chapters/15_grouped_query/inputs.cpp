#include "chapters/15_grouped_query/inputs.hpp"

#include <utility>

#include "common/inputs/sequence.hpp"
#include "common/language_model/sentence_option.hpp"
#include "common/lesson/lesson.hpp"

const std::string default_sentence = "the cat sat on the mat";
const std::string input_help =
    "\"" + default_sentence + "\" with random embeddings of width --d-model; with --input, d_model is the file's width";

void add_flags(Lesson& lesson, Flags& f) {
    lesson.option("--heads", f.h, "h, the number of query heads; must divide d_model", Range{1, 64});
    lesson.option("--kv-heads", f.g, "g, the number of key–value heads; must divide h", Range{1, 64});
    lesson.option("--d-model", f.d_model, "d_model, the width of the embeddings, without --input", Range{1, 512});
    lesson.option("--seed", f.seed, "seed of the random embeddings and weights");
}

Inputs draw_inputs(const SequenceSource& input, const Flags& f, bool d_model_given) {
    Random random(f.seed);
    Sequence seq = random_or_input_sequence(input, default_sentence, f.d_model, d_model_given, random,
                                            square_matrices_held(f.h));
    check_heads(cols(seq.X), f.h, f.g,
                input.is_default()   ? "--d-model"
                : input.text.empty() ? "the width of --input " + input.input + ","
                                     : std::string("the width of --text's embeddings,"));
    GroupedWeights W{random_attention_weights(cols(seq.X), f.h, f.g, random)};
    return {std::move(seq), std::move(W)};
}
