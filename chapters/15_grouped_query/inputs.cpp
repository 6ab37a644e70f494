#include "chapters/15_grouped_query/inputs.hpp"

#include <utility>

const std::string default_sentence = "the cat sat on the mat";
const std::string input_help =
    "\"" + default_sentence + "\" with random embeddings of width --d-model; with --input, d_model is the file's width";

void add_flags(CLI::App& cli, Flags& f) {
    cli.add_option("--heads", f.h, "h, the number of query heads (1 to 64); must divide d_model")
        ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{64}).description(""));
    cli.add_option("--kv-heads", f.g, "g, the number of key–value heads (1 to 64); must divide h")
        ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{64}).description(""));
    cli.add_option("--d-model", f.d_model, "d_model, the width of the embeddings (1 to 512; without --input)")
        ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{512}).description(""));
    cli.add_option("--seed", f.seed, "seed of the random embeddings and weights")->capture_default_str();
}

Inputs draw_inputs(const std::string& input, const Flags& f, bool d_model_given) {
    Random random(f.seed);
    Sequence seq = random_or_input_sequence(input, default_sentence, f.d_model, d_model_given, random,
                                            square_matrices_held(f.h));
    check_heads(cols(seq.X), f.h, f.g, input.empty() ? "--d-model" : "the width of --input " + input + ",");
    GroupedWeights W{random_attention_weights(cols(seq.X), f.h, f.g, random)};
    return {std::move(seq), std::move(W)};
}
