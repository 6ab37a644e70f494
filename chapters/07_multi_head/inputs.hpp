// Chapter 07 · the lesson's inputs: the flags that set every shape (--heads, --d-model,
// --seed, --layer), and the sequence (the default sentence with random embeddings, --input,
// or --text: the trained model's embeddings) and the weights (random, or with --layer the
// model's learned ones), checked against --heads before anything is printed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "chapters/07_multi_head/math.hpp"
#include "common/inputs/sequence.hpp"

class Lesson;  // common/lesson/lesson.hpp: the chapter's flags are declared in it

extern const std::string default_sentence;  // "the cat sat on the mat"

struct Flags {
    std::size_t h = 2;        // --heads, 1 to 64
    std::size_t d_model = 8;  // --d-model, 1 to 512 (without --input)
    std::uint64_t seed = 6;   // --seed of the random embeddings and weights
    std::size_t layer = 0;    // --layer: the trained model's layer whose weights serve (with --text)
};
// Adds --heads, --d-model, --seed and --layer to `cli`, read into `flags`.
void add_flags(Lesson& lesson, Flags& flags);

struct Inputs {
    Sequence seq;
    MultiHeadWeights W;
    std::size_t h = 0;     // heads: --heads, or the model's with --layer
    bool learned = false;  // --layer: X is ln_1 of the embeddings, W the layer's weights
};

// The default sentence with random embeddings of width flags.d_model, or --input, or --text;
// random weights, or with --layer the trained model's layer: its W_Q, W_K, W_V (the slices of
// its fused c_attn, transposed) and W_O, read by ln_1 of the embeddings, and h its heads
// (`given`: whether --d-model, --heads and --layer were on the command line). Throws
// InputError when h does not divide the sequence's width, before the model is read.
struct Given {
    bool d_model = false, heads = false, layer = false;
};
Inputs the_inputs(const SequenceSource& input, Flags flags, Given given);
