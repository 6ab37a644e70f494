#include "common/language_model/model_sentence.hpp"

#include <optional>

#include <fmt/format.h>

#include "common/gpt/gpt_layers.hpp"
#include "common/language_model/language_model.hpp"
#include "common/numbers/input_error.hpp"
#include "common/text/corpus.hpp"
#include "common/text/token_text.hpp"
#include "common/tokens/tokenizer.hpp"

namespace {

std::optional<TrainedGpt>& the_model() {
    static std::optional<TrainedGpt> model;
    return model;
}

}  // namespace

GptConfig default_model_config() { return default_recipe().gpt.config; }

const TrainedGpt& trained_default_model() {
    std::optional<TrainedGpt>& model = the_model();
    if (!model) {
        Recipe recipe = default_recipe();
        model = kept_model(checked_corpus(recipe), recipe);
        // Not kept yet: train it (under the recipe's lock, so two runs train it once), saying
        // what the wait is for as it starts.
        if (!model)
            model = default_language_model(gpt_progress_bar("chapter 22's GPT, once, for your sentence")).trained;
    }
    return *model;
}

Sequence model_sentence_sequence(const std::string& text, bool listing_only) {
    // The sentence is checked against the text's characters before anything trains or prints.
    Recipe recipe = default_recipe();
    const Corpus corpus = checked_corpus(recipe);
    const Tokenizer characters = char_tokenizer(corpus.text);
    const std::u32string sentence = checked_sentence("--text", text, characters, corpus.name);
    const std::size_t d_model = recipe.gpt.config.d_model;
    Sequence seq;
    seq.dimensions = numbered("d", d_model);
    if (!the_model()) the_model() = kept_model(corpus, recipe);  // from the book read above, not read again
    if (listing_only && !the_model()) {  // --list-steps trains nothing: the characters stand in
        for (const char32_t c : sentence) seq.tokens.push_back(visible_symbol(std::u32string(1, c)));
        seq.X = Matrix::from_shape({seq.tokens.size(), d_model});
        seq.X.fill(0);
        return seq;
    }
    const TrainedGpt& model = trained_default_model();
    const Tokens ids = model_tokens(model.tokenizer, sentence);
    seq.X = Matrix::from_shape({ids.size(), d_model});
    for (std::size_t i = 0; i < ids.size(); ++i) {
        seq.tokens.push_back(visible_symbol(model.tokenizer.symbol(int(ids[i]))));
        for (std::size_t d = 0; d < d_model; ++d) seq.X(i, d) = model.model.wte(ids[i], d);
    }
    return seq;
}

LayerProjections layer_projections(const Gpt<float>& model, std::size_t layer) {
    const GptBlock<float>& block = model.h.at(layer);
    const std::size_t d = model.config.d_model;
    LayerProjections W;
    for (Matrix* m : {&W.W_Q, &W.W_K, &W.W_V, &W.W_O}) *m = Matrix::from_shape({d, d});
    // c_attn is (3d × d), (out × in): entry (part·d + j, i) feeds input i into output j.
    for (std::size_t i = 0; i < d; ++i)
        for (std::size_t j = 0; j < d; ++j) {
            W.W_Q(i, j) = block.c_attn_weight(j, i);
            W.W_K(i, j) = block.c_attn_weight(d + j, i);
            W.W_V(i, j) = block.c_attn_weight(2 * d + j, i);
            W.W_O(i, j) = block.attn_proj_weight(j, i);
        }
    W.ln_1_gamma = block.ln_1_weight;
    W.ln_1_beta = block.ln_1_bias;
    return W;
}

Matrix layer_ln_1(const LayerProjections& W, const Matrix& X) {
    Matrix y, stats;
    gpt_layers::layer_norm(X, W.ln_1_gamma, W.ln_1_beta, y, stats);
    return y;
}

LayerInput layer_input(const std::string& text, std::size_t layer, bool listing_only) {
    LayerInput in{model_sentence_sequence(text, listing_only), {}};
    if (listing_only) {  // --list-steps shows no number: no model is read for it
        const std::size_t d = cols(in.seq.X);
        for (Matrix* m : {&in.W.W_Q, &in.W.W_K, &in.W.W_V, &in.W.W_O}) *m = xt::zeros<float>({d, d});
        in.W.ln_1_gamma = xt::zeros<float>({std::size_t(1), d}), in.W.ln_1_beta = in.W.ln_1_gamma;
        return in;
    }
    in.W = layer_projections(trained_default_model().model, layer);
    in.seq.X = layer_ln_1(in.W, in.seq.X);
    return in;
}

void check_layer_flag(std::size_t layer, bool layer_given, bool text_given) {
    if (!layer_given) return;
    if (!text_given)
        throw InputError(fmt::format("--layer {}: only with --text (a layer of the trained model's projections)", layer));
}
