#include "chapters/18_latent_attention/inputs.hpp"

#include <utility>

#include "common/inputs/sequence.hpp"
#include "common/language_model/sentence_option.hpp"
#include "common/lesson/lesson.hpp"

const std::string default_sentence = "the cat sat on the mat";
const std::string input_help =
    "\"" + default_sentence + "\" with random embeddings of width --d-model; with --input, d_model is the file's width";

void add_flags(Lesson& lesson, Flags& f) {
    lesson.option("--heads", f.s.h, "h, the number of heads", Range{1, 64});
    lesson.option("--head-dim", f.s.d_h, "d_h, the width of a head's query, key and value", Range{1, 64});
    lesson.option("--latent", f.s.d_c, "d_c, the width of the key–value latent c_KV", Range{1, 512});
    lesson.option("--q-latent", f.s.d_cq, "d_c', the width of the query latent c_Q", Range{1, 512});
    lesson.option("--rope-dim", f.s.d_rope, "d_h^R, the width of the decoupled RoPE query and key, even",
                  Range{2, 64});
    lesson.option("--d-model", f.d_model, "d_model, the width of the embeddings, without --input", Range{1, 512});
    lesson.option("--seed", f.seed, "seed of the random embeddings and weights");
}

Inputs draw_inputs(const SequenceSource& input, const Flags& f, bool d_model_given) {
    check_shape(f.s);
    Random random(f.seed);
    Sequence seq = random_or_input_sequence(input, default_sentence, f.d_model, d_model_given, random,
                                            square_matrices_held(f.s.h));
    ChapterWeights W{random_latent_weights(cols(seq.X), f.s, random)};
    return {std::move(seq), std::move(W)};
}
