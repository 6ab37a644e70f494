#include "chapters/06_masking/inputs.hpp"
#include "common/inputs/sequence.hpp"

#include <algorithm>

const std::string default_sentence = "the animal didn't cross the street because it was too tired";
const std::string short_sentence = "this forum is awesome";
const std::string pad_token = "<pad>";

namespace {

// The tokens padded with <pad> to `length`, on the right or on the left.
Labels pad_tokens(const Labels& tokens, std::size_t length, bool left) {
    Labels padded(length, pad_token);
    std::copy(tokens.begin(), tokens.end(), padded.begin() + (left ? long(length - tokens.size()) : 0));
    return padded;
}

}  // namespace

Inputs load_inputs(const std::string& input) {
    Inputs in{{},
              read_data_file("projections/W_Q.csv"),
              read_data_file("projections/W_K.csv"),
              read_data_file("projections/W_V.csv"),
              load_sequence(input, default_sentence),
              {},
              0,
              2,
              {},
              {}};
    in.W = {in.W_Q.values, in.W_K.values, in.W_V.values};
    require_projects(in.W_Q, in.seq, input.empty() ? data_path("embeddings.csv") : input);
    const LabelledMatrix embeddings = read_data_file("embeddings.csv");
    in.long_n = rows(embed_sentence(embeddings, default_sentence).X);
    in.short_seq = embed_sentence(embeddings, short_sentence);
    in.padded_tokens = pad_tokens(in.short_seq.tokens, in.long_n, false);
    in.left_tokens = pad_tokens(in.short_seq.tokens, in.left_pads + in.short_seq.tokens.size(), true);
    return in;
}
