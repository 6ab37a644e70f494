#include "chapters/18_latent_attention/inputs.hpp"

#include <utility>

const std::string default_sentence = "the cat sat on the mat";
const std::string input_help =
    "\"" + default_sentence + "\" with random embeddings of width --d-model; with --input, d_model is the file's width";

namespace {
void add_size(CLI::App& cli, const std::string& flag, std::size_t& value, const std::string& what, std::size_t low,
              std::size_t high) {
    cli.add_option(flag, value, what)->capture_default_str()->check(CLI::Range(low, high).description(""));
}
}  // namespace

void add_flags(CLI::App& cli, Flags& f) {
    add_size(cli, "--heads", f.s.h, "h, the number of heads (1 to 64)", 1, 64);
    add_size(cli, "--head-dim", f.s.d_h, "d_h, the width of a head's query, key and value (1 to 64)", 1, 64);
    add_size(cli, "--latent", f.s.d_c, "d_c, the width of the key–value latent c_KV (1 to 512)", 1, 512);
    add_size(cli, "--q-latent", f.s.d_cq, "d_c', the width of the query latent c_Q (1 to 512)", 1, 512);
    add_size(cli, "--rope-dim", f.s.d_rope, "d_h^R, the width of the decoupled RoPE query and key (2 to 64, even)",
             2, 64);
    add_size(cli, "--d-model", f.d_model, "d_model, the width of the embeddings (1 to 512; without --input)", 1, 512);
    cli.add_option("--seed", f.seed, "seed of the random embeddings and weights")->capture_default_str();
}

Inputs draw_inputs(const std::string& input, const Flags& f, bool d_model_given) {
    check_shape(f.s);
    Random random(f.seed);
    Sequence seq = random_or_input_sequence(input, default_sentence, f.d_model, d_model_given, random,
                                            square_matrices_held(f.s.h));
    ChapterWeights W{random_latent_weights(cols(seq.X), f.s, random)};
    return {std::move(seq), std::move(W)};
}
