// Chapter 13 · the lesson's inputs: the flags and their ranges; the sentence, the projections
// of data/projections/ and the model table data/kv_cache_models.csv, read and checked against
// each other before anything is printed; and --prefill's check against the sentence's length.
#pragma once

#include <cstddef>
#include <string>

#include "common/inputs/labelled_csv.hpp"
#include "common/inputs/sequence.hpp"

class Lesson;  // common/lesson/lesson.hpp: the chapter's flags are declared in it

inline const std::string default_sentence = "the animal didn't cross the street because it was too tired";
constexpr std::size_t default_prefill = 7;

struct Flags {  // the chapter's flags
    std::size_t prefill = default_prefill, window = 4;
    bool measure = false;
    bool prefill_given = false;  // whether --prefill was on the command line (lesson.given)
};
// --prefill, --window and --measure.
void add_flags(Lesson& lesson, Flags& f);

struct Inputs {
    Sequence seq;                  // --input, or the default sentence
    LabelledMatrix W_Q, W_K, W_V;  // data/projections/
    LabelledMatrix models;         // data/kv_cache_models.csv
    std::size_t prefill = 0;       // --prefill if given, else default_prefill but at most n − 1
};

// `input` is --input ("" for the default sentence). Throws InputError when the projections do
// not fit the sequence's width, or the prompt would leave no token to decode (prefill ≥ n).
Inputs load_inputs(const std::string& input, const Flags& flags);
