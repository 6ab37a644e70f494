#include "chapters/07_multi_head/inputs.hpp"

#include <fmt/format.h>

#include "common/lesson/lesson.hpp"
#include "common/math/input_error.hpp"

const std::string default_sentence = "the cat sat on the mat";

void add_flags(Lesson& lesson, Flags& flags) {
    lesson.option("--heads", flags.h, "h, the number of heads; must divide d_model", Range{1, 64});
    lesson.option("--d-model", flags.d_model, "d_model, the width of the embeddings, without --input", Range{1, 512});
    lesson.option("--seed", flags.seed, "seed of the random embeddings and weights");
}

Sequence the_sequence(const std::string& input, const Flags& flags, bool d_model_given, Random& random) {
    const std::size_t h = flags.h;
    Sequence seq = random_or_input_sequence(input, default_sentence, flags.d_model, d_model_given, random);
    if (cols(seq.X) % h != 0)
        throw InputError(fmt::format(
            "{}: each head gets d_model / h columns, so h must divide d_model",
            input.empty() ? fmt::format("--d-model {} is not divisible by --heads {}", cols(seq.X), h)
                          : fmt::format("--heads {}: the width of --input {} ({}) is not divisible by {}", h, input,
                                        cols(seq.X), h)));
    return seq;
}
