// Chapter 09 · the lesson's inputs: the flags of the rotation and long-encoding steps
// (--max-pos, --d-pe, --shift), chapter 05's projections, the sentence (--input or the
// default) checked against them, and the order of sentence B; all checked before
// anything is printed.
#pragma once

#include <cstddef>
#include <string>

#include "chapters/09_positional_encoding/math.hpp"
#include "common/inputs/labelled_csv.hpp"
#include "common/inputs/sequence.hpp"

class Lesson;  // common/lesson/lesson.hpp: the chapter's flags are declared in it

extern const std::string default_sentence;  // "the cat sat on the mat"

struct Flags {
    std::size_t max_pos = 50;  // --max-pos: positions of the long encoding
    std::size_t d_pe = 16;     // --d-pe: its width (even: pairs of sin and cos)
    std::size_t shift = 1;     // --shift: k of the rotation step
};
// Adds --max-pos, --d-pe and --shift to `cli`, read into `flags`.
void add_flags(Lesson& lesson, Flags& flags);

struct Inputs {
    LabelledMatrix W_Q, W_K, W_V;  // data/projections/, with the names of their columns
    Projections W;                 // the same
    Sequence seq;                  // sentence A
    Order order;                   // row i of sentence B is row order[i] of A
    Labels tokens_b;               // sentence B's tokens
    // The token whose output we follow: "sat" stays at position 2 in both sentences;
    // for a learner's sequence, the first token (it moves to the end).
    std::size_t watched = 0;
};

// `input`: the sequence's file, empty for the default sentence, whose B is "the mat sat
// on the cat"; a learner's sequence is reversed. Throws InputError when --d-pe is odd,
// the projections do not read the sequence's dimensions, or it has fewer than 2 tokens.
Inputs load_inputs(const std::string& input, const Flags& flags);
