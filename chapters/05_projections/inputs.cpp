#include "chapters/05_projections/inputs.hpp"

#include <fmt/format.h>

#include "common/inputs/sequence.hpp"
#include "common/language_model/model_sentence.hpp"
#include "common/numbers/input_error.hpp"

const std::string law_sentence = "the law will never be perfect but its application should be just";

namespace {

// data/projections/<name>.csv, or the learner's own file.
LabelledMatrix read_projection(const std::string& path, const std::string& name) {
    return path.empty() ? read_data_file("projections/" + name + ".csv") : read_labelled_csv(path);
}

}  // namespace

Weights load_weights(const std::string& w_q_path, const std::string& w_k_path, const std::string& w_v_path,
                     const Sequence& seq, const std::string& input) {
    Weights W{read_projection(w_q_path, "W_Q"), read_projection(w_k_path, "W_K"), read_projection(w_v_path, "W_V")};
    // Each W reads the sequence's dimensions, and a query and a key have one width d_k.
    for (const LabelledMatrix* w : {&W.W_Q, &W.W_K, &W.W_V})
        require_projects(*w, seq, input.empty() ? data_path("embeddings.csv") : input);
    if (W.W_K.columns.size() != W.W_Q.columns.size())
        throw InputError(fmt::format("{}: W_K has {} columns, but W_Q ({}) has {}: a query and a key must have "
                                     "the same width d_k to be compared",
                                     W.W_K.source, W.W_K.columns.size(), W.W_Q.source, W.W_Q.columns.size()));
    return W;
}

Weights learned_weights(const LayerInput& in, std::size_t layer) {
    const std::size_t d = cols(in.seq.X);
    const auto named = [&](const Matrix& W, const std::string& column, const std::string& name) {
        return LabelledMatrix{in.seq.dimensions, numbered(column, d), W, fmt::format("layer {}'s {}", layer, name)};
    };
    return {named(in.W.W_Q, "q", "W_Q"), named(in.W.W_K, "k", "W_K"), named(in.W.W_V, "v", "W_V")};
}

LawSentence load_law_sentence(const Sequence& seq) {
    const LabelledMatrix embeddings = read_data_file("embeddings.csv");
    LawSentence law;
    law.runs = embeddings.columns == seq.dimensions;
    law.embedding_dims = embeddings.columns.size();
    if (law.runs) law.seq = embed_sentence(embeddings, law_sentence);
    return law;
}
