#include "chapters/19_linear_attention/inputs.hpp"

#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "common/attention/attention_weights.hpp"
#include "common/inputs/sequence.hpp"
#include "common/language_model/sentence_option.hpp"
#include "common/lesson/lesson.hpp"
#include "common/lesson/threads_option.hpp"

const std::string default_sentence = "the animal didn't cross the street because it was too tired";
const std::string input_help =
    "\"" + default_sentence + "\" with random embeddings of width --d-model; with --input, d_model is the file's width";

void add_flags(Lesson& lesson, Flags& f) {
    lesson.option("--feature-map", f.feature_map, "φ of linear attention: elu1 (elu(x) + 1), relu or exp",
                  Choices{"elu1", "relu", "exp"});
    lesson.option("--chunk", f.s.chunk, "C, tokens per chunk of the chunked form", Range{1, 100000});
    lesson.option("--beta", f.s.beta, "β of the delta rule for every token (default: σ(x·w_β) per token)",
                  Range{0, 1, Range::low_excluded})
        .without_default();
    lesson.option("--alpha", f.s.alpha, "α of the gated delta rule for every token", Range{0, 1, Range::low_excluded});
    lesson.option("--d-model", f.d_model, "d_model = d, the width of the embeddings", Range{1, 64});
    lesson.option("--seed", f.seed, "seed of the embeddings, the projections, the memory's pairs and the training");
    lesson.option("--steps", f.steps, "Adam steps of each trained model, the same for all four", Range{1, 5000});
    lesson.flag("--measure", f.measure, "also time the training steps of each model (output varies)");
    add_threads_option(lesson);  // the trainings side by side, one model a thread
}

CopyTaskSettings copy_task_settings(const Flags& f) {
    CopyTaskSettings s;
    s.steps = f.steps, s.seed = f.seed;
    return s;
}

Inputs load_inputs(const SequenceSource& input, const Flags& f) {
    Random random(f.seed);
    Sequence seq = random_or_input_sequence(input, default_sentence, f.d_model, f.d_model_given, random);
    const std::size_t d = cols(seq.X);
    AttentionWeights W = random_attention_weights(d, 1, 1, random);
    Matrix w_beta = random.normal_matrix(d, 1, 1.0f / std::sqrt(float(d)));
    Settings s = f.s;
    s.phi = feature_map_named(f.feature_map);
    return {std::move(seq), {std::move(W.W_Q), std::move(W.W_K), std::move(W.W_V), std::move(w_beta)}, s};
}
