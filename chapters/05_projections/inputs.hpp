// Chapter 05 · the lesson's inputs: the three projections (data/projections/, the
// learner's own files, or with --text a layer of the trained model), checked against the
// sequence before anything is printed, and the sentence of the step its-and-law.
#pragma once

#include <cstddef>
#include <string>

#include "common/inputs/labelled_csv.hpp"
#include "common/inputs/sequence.hpp"
#include "common/language_model/model_sentence.hpp"

struct Weights {
    LabelledMatrix W_Q, W_K, W_V;  // (d_model × d_k), (d_model × d_k), (d_model × d_v)
};

// Each from its path, or data/projections/<name>.csv when the path is empty. Throws
// InputError when a W does not read the sequence's dimensions (`input`: the sequence's
// file, empty for data/embeddings.csv), or W_K's width is not W_Q's.
Weights load_weights(const std::string& w_q_path, const std::string& w_k_path, const std::string& w_v_path,
                     const Sequence& seq, const std::string& input);

// With --text: the learned W_Q, W_K, W_V of the layer the sentence went through (all its heads'
// columns, d_model × d_model, transposed from PyTorch's (out × in), biases left out), named.
Weights learned_weights(const LayerInput& in, std::size_t layer);

extern const std::string law_sentence;  // "the law will never be perfect but its application …"

// The law sentence, embedded with data/embeddings.csv: it runs only when those are the
// dimensions of the lesson's sequence (the rows of W).
struct LawSentence {
    bool runs = false;
    std::size_t embedding_dims = 0;  // the width of data/embeddings.csv
    Sequence seq;
};
LawSentence load_law_sentence(const Sequence& seq);
