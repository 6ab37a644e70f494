// Chapter 08 · the lesson's inputs: the flags that choose the two sequences (files, or
// words of data/translation/), the projections of data/translation/, and the sequences,
// checked against the projections before anything is printed.
#pragma once

#include <string>
#include <vector>

#include "common/inputs/labelled_csv.hpp"
#include "common/inputs/sequence.hpp"

class Lesson;  // common/lesson/lesson.hpp: the chapter's flags are declared in it

extern const std::string default_source;  // "the black cat sat": English, what the encoder read
extern const std::string default_target;  // "le chat noir": French, what the decoder has written so far

// The projections of data/translation/, with the names of their rows and columns.
struct Weights {
    LabelledMatrix W_Q, W_K, W_V;  // (d_dec × d_k), (d_enc × d_k), (d_enc × d_v)
};

// The flags: the two sequences, from files or from words.
struct Flags {
    std::string encoder_path, decoder_path;
    std::vector<std::string> source_words, target_words;  // e.g. --source the white dog sat
};

// Adds --encoder, --decoder, --source and --target to `cli`, read into `f`.
void add_flags(Lesson& lesson, Flags& f);

// What the lesson reads: the projections of data/translation/ and the two sequences.
struct Inputs {
    Weights W;
    Sequence enc, dec;
};

// Throws InputError when a word is not in its vocabulary, a sequence does not have the
// dimensions its projection reads, or the projections do not fit together.
Inputs load_inputs(const Flags& f);
