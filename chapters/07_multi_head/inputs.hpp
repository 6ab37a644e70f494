// Chapter 07 · the lesson's inputs: the flags that set every shape (--heads, --d-model,
// --seed), and the sequence (the default sentence with random embeddings, or --input),
// checked against --heads before anything is printed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/lesson/sequence.hpp"

class Lesson;  // common/lesson/lesson.hpp: the chapter's flags are declared in it

extern const std::string default_sentence;  // "the cat sat on the mat"

struct Flags {
    std::size_t h = 2;        // --heads, 1 to 64
    std::size_t d_model = 8;  // --d-model, 1 to 512 (without --input)
    std::uint64_t seed = 6;   // --seed of the random embeddings and weights
};
// Adds --heads, --d-model and --seed to `cli`, read into `flags`.
void add_flags(Lesson& lesson, Flags& flags);

// The default sentence with random embeddings of width flags.d_model, or --input
// (`input`). Throws InputError when h does not divide the sequence's width.
Sequence the_sequence(const std::string& input, const Flags& flags, bool d_model_given, Random& random);
