// Chapter 15 · the lesson's inputs: its flags, and the sequence (random embeddings of width
// --d-model, or --input's file), checked against the heads before anything is printed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "chapters/15_grouped_query/math.hpp"
#include "common/inputs/sequence.hpp"

class Lesson;  // common/lesson/lesson.hpp: the chapter's flags are declared in it

struct Flags {
    std::size_t h = 4, g = 2, d_model = 8;  // --heads, --kv-heads, --d-model
    std::uint64_t seed = 15;                // of the random embeddings and weights
};

// --heads and --kv-heads (1 to 64), --d-model (1 to 512), --seed.
void add_flags(Lesson& lesson, Flags& f);

extern const std::string default_sentence;  // "the cat sat on the mat"
extern const std::string input_help;        // --input's default, as --help says it

// The sequence and the weights of the lesson, drawn from one Random(f.seed), X first.
struct Inputs {
    Sequence seq;      // X (n × d_model)
    GroupedWeights W;  // W_Q, W_K, W_V, W_O
};

// The default sentence with random embeddings of width f.d_model, or --input's sequence
// (`input` not empty; a --d-model given, `d_model_given`, must be its width), then random
// weights. Throws InputError when h does not divide its width or g does not divide h.
Inputs draw_inputs(const SequenceSource& input, const Flags& f, bool d_model_given);
