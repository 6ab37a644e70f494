// A learner's sentence read by the language model chapter 22 trains (its default recipe,
// common/language_model/language_model.hpp): what every chapter's --text "a sentence" shows.
//
//   const Sequence seq = model_sentence_sequence("Call me Ishmael.", false);
//   // seq.X: (n × d_model) the rows of wte for the sentence's n tokens, labelled |C|all|␣me|…
//   const LayerInput in = layer_input("Call me Ishmael.", 0, false);
//   // in.seq.X: ln_1 of those rows, what layer 0's attention reads; in.W its W_Q, W_K, W_V, W_O
//
// The model is read back from the build folder, or trained first when no run has kept it
// (about a minute, with a progress line on stderr), once per run.
#pragma once

#include <cstddef>
#include <string>

#include "common/inputs/sequence.hpp"
#include "common/language_model/trained_gpt.hpp"
#include "common/numbers/matrix.hpp"

// The default model's sizes (d_model, layers, heads, …), known without reading it.
GptConfig default_model_config();

// The trained default model, read (or trained) on the first call.
const TrainedGpt& trained_default_model();

// The sentence, checked first (one line naming --text: empty, too long, not UTF-8, a character
// Moby-Dick lacks), as the model's tokens: X's rows are the rows of wte for those tokens (d_model
// wide), labelled by the tokens as a learner reads them (a space as ␣), its columns d0, d1, ….
// With `listing_only` (--list-steps) nothing is trained: the tokens are those of a model already
// kept, else the sentence's characters, and X is zero.
Sequence model_sentence_sequence(const std::string& text, bool listing_only);

// One layer's attention as the tutorial writes it: Q = X · W_Q with W_Q (d_model × d_k), for
// all heads at once (head h: columns h·d_h … (h+1)·d_h − 1 of each, as nanoGPT splits c_attn).
// PyTorch stores c_attn as (3d × d), (out × in): W_Q is the transpose of its rows 0 … d−1,
// W_K of d … 2d−1, W_V of 2d … 3d−1; W_O the transpose of attn.c_proj. The biases are left out.
struct LayerProjections {
    Matrix W_Q, W_K, W_V, W_O;  // (d × d) each
    Matrix ln_1_gamma, ln_1_beta;  // (1 × d): what the layer's attention reads is ln_1(x)
};
LayerProjections layer_projections(const Gpt<float>& model, std::size_t layer);

// ln_1 of the layer, row by row: (x − μ) / √(σ² + 1e-5) · γ + β.
Matrix layer_ln_1(const LayerProjections& W, const Matrix& X);

// A sentence as one layer of the trained model reads it, the model read once: its tokens, what
// the layer's attention reads (ln_1 of their embeddings with the layer's γ and β: no positions,
// no earlier layers), and the layer's weights. With `listing_only` (--list-steps) nothing is
// trained: X as model_sentence_sequence gives it, and every weight zero.
struct LayerInput {
    Sequence seq;        // X = ln_1(wte[tokens])  (n × d_model), rows labelled by the tokens
    LayerProjections W;  // the layer's
};
LayerInput layer_input(const std::string& text, std::size_t layer, bool listing_only);

// --layer L (its range, 0 … layers − 1, is declared with the flag): refused in one line without --text.
void check_layer_flag(std::size_t layer, bool layer_given, bool text_given);
