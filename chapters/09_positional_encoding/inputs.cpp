#include "chapters/09_positional_encoding/inputs.hpp"

#include <fmt/format.h>

#include "common/inputs/sequence.hpp"
#include "common/lesson/lesson.hpp"
#include "common/numbers/input_error.hpp"

const std::string default_sentence = "the cat sat on the mat";

namespace {

const Order swap_cat_and_mat = {0, 5, 2, 3, 4, 1};  // "the mat sat on the cat"

}  // namespace

void add_flags(Lesson& lesson, Flags& flags) {
    lesson.option("--max-pos", flags.max_pos, "positions of the long encoding of the long-encoding step",
                  Range{1, 10000});
    lesson.option("--d-pe", flags.d_pe,
                  "width of the long encoding of the long-encoding step (even: pairs of sin and cos)", Range{2, 512});
    lesson.option("--shift", flags.shift, "k of the rotation step: PE(pos + k) = PE(pos) · M_k", Range{0, 1000});
}

Inputs load_inputs(const std::string& input, const Flags& flags) {
    if (flags.d_pe % 2 != 0)
        throw InputError(
            fmt::format("--d-pe {}: must be even (the columns come in pairs of sin and cos)", flags.d_pe));
    Inputs in{read_data_file("projections/W_Q.csv"), read_data_file("projections/W_K.csv"),
              read_data_file("projections/W_V.csv"), {}, load_sequence(input, default_sentence), {}, {}, 0};
    require_projects(in.W_Q, in.seq, input.empty() ? data_path("embeddings.csv") : input);
    const std::size_t n = rows(in.seq.X);
    if (n < 2) throw InputError(fmt::format("--input {}: needs at least 2 tokens to reorder", input));
    in.order = input.empty() ? swap_cat_and_mat : reversal(n);
    in.tokens_b = permute_labels(in.seq.tokens, in.order);
    in.W = {in.W_Q.values, in.W_K.values, in.W_V.values};
    in.watched = input.empty() ? 2 : 0;
    return in;
}
