#include "chapters/07_multi_head/inputs.hpp"

#include <fmt/format.h>

#include "common/math/input_error.hpp"

const std::string default_sentence = "the cat sat on the mat";

void add_flags(CLI::App& cli, Flags& flags) {
    cli.add_option("--heads", flags.h, "h, the number of heads (1 to 64); must divide d_model")
        ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{64}).description(""));
    cli.add_option("--d-model", flags.d_model, "d_model, the width of the embeddings (1 to 512; without --input)")
        ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{512}).description(""));
    cli.add_option("--seed", flags.seed, "seed of the random embeddings and weights")
        ->capture_default_str();
}

Sequence the_sequence(const CLI::App& cli, const std::string& input, const Flags& flags, Random& random) {
    const std::size_t h = flags.h;
    Sequence seq = random_or_input_sequence(input, default_sentence, flags.d_model, cli.count("--d-model") > 0, random);
    if (cols(seq.X) % h != 0)
        throw InputError(fmt::format(
            "{}: each head gets d_model / h columns, so h must divide d_model",
            input.empty() ? fmt::format("--d-model {} is not divisible by --heads {}", cols(seq.X), h)
                          : fmt::format("--heads {}: the width of --input {} ({}) is not divisible by {}", h, input,
                                        cols(seq.X), h)));
    return seq;
}
