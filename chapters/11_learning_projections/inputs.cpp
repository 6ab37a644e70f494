#include "chapters/11_learning_projections/inputs.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/lesson/labelled_csv.hpp"
#include "common/math/input_error.hpp"

void add_flags(CLI::App& cli, Flags& f) {
    cli.add_option("--steps", f.steps, "training steps (Adam updates on the whole training set)")
        ->check(CLI::Range(1, 5000))->capture_default_str();
    cli.add_option("--lr", f.lr, "Adam's learning rate: about how far each entry moves per step")
        ->check(CLI::Range(1e-4f, 1.0f))->capture_default_str();
    cli.add_option("--seed", f.seed, "seed of the sentences and of the random initial weights")->capture_default_str();
    cli.add_option("--d-k", f.d_k, "width of the queries and keys (columns of W_Q and W_K)")
        ->check(CLI::Range(1, 64))->capture_default_str();
}

Sentence shown_sentence(const std::string& input) {
    if (input.empty()) return make_sentence({"queen", "box", "king", "it", "she", "he"}, {0, 2, 1, 0, 0, 0});
    const LabelledMatrix table = read_labelled_csv(input);
    require_width(table, d_model, fmt::format("this chapter's embeddings ({})", fmt::join(dimensions, ",")));
    if (table.columns != dimensions)
        throw InputError(fmt::format("{}: the columns must be named {}", input, fmt::join(dimensions, ",")));
    return label_sentence(table.rows, table.values);
}
