// Chapter 06 · the lesson's inputs: the hand-made projections, the sentence of the
// causal mask (--input or the default), checked against them before anything is
// printed, and the short sentence of the batch examples with its padded tokens.
#pragma once

#include <cstddef>
#include <string>

#include "chapters/06_masking/math.hpp"
#include "common/inputs/labelled_csv.hpp"
#include "common/inputs/sequence.hpp"

extern const std::string default_sentence;  // "the animal didn't cross the street because it was too tired"
extern const std::string short_sentence;    // "this forum is awesome", padded in the batches
extern const std::string pad_token;         // "<pad>"

// What the chapter reads.
struct Inputs {
    Projections W;                 // data/projections/
    LabelledMatrix W_Q, W_K, W_V;  // the same, with the names of their columns
    Sequence seq;                  // the causal mask's sentence
    Sequence short_seq;            // padded in the batches
    std::size_t long_n = 0;        // the length the short sentence is padded to: the default sentence's
    std::size_t left_pads = 2;     // the pads before the short sentence in the decoder's batch
    Labels padded_tokens;          // the short sentence padded on the right to long_n
    Labels left_tokens;            // left_pads pads, then the short sentence
};

// `input`: the sequence's file, empty for the default sentence. Throws InputError when
// the projections do not read the sequence's dimensions.
Inputs load_inputs(const std::string& input);
