#include "chapters/11_learning_projections/inputs.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/inputs/labelled_csv.hpp"
#include "common/lesson/lesson.hpp"
#include "common/numbers/input_error.hpp"

void add_flags(Lesson& lesson, Flags& f) {
    lesson.option("--steps", f.steps, "training steps (Adam updates on the whole training set)", Range{1, 5000});
    lesson.option("--lr", f.lr, "Adam's learning rate: about how far each entry moves per step", Range{1e-4, 1});
    lesson.option("--seed", f.seed, "seed of the sentences and of the random initial weights");
    lesson.option("--d-k", f.d_k, "width of the queries and keys (columns of W_Q and W_K)", Range{1, 64});
}

Sentence shown_sentence(const std::string& input) {
    if (input.empty()) return make_sentence({"queen", "box", "king", "it", "she", "he"}, {0, 2, 1, 0, 0, 0});
    const LabelledMatrix table = read_labelled_csv(input);
    require_width(table, d_model, fmt::format("this chapter's embeddings ({})", fmt::join(dimensions, ",")));
    if (table.columns != dimensions)
        throw InputError(fmt::format("{}: the columns must be named {}", input, fmt::join(dimensions, ",")));
    return label_sentence(table.rows, table.values);
}
