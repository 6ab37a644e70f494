// Chapter 15 · the lesson's inputs: its flags, and the sequence (random embeddings of width
// --d-model, or --input's file), checked against the heads before anything is printed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "common/lesson/sequence.hpp"
#include "common/math/random.hpp"

struct Flags {
    std::size_t h = 4, g = 2, d_model = 8;  // --heads, --kv-heads, --d-model
    std::uint64_t seed = 15;                // of the random embeddings and weights
};

// --heads and --kv-heads (1 to 64), --d-model (1 to 512), --seed.
void add_flags(CLI::App& cli, Flags& f);

// The default sentence with random embeddings of width f.d_model drawn from `random`, or
// --input's sequence (`input` not empty; a --d-model given, `d_model_given`, must be its
// width). Throws InputError when h does not divide its width or g does not divide h.
Sequence read_sequence(const std::string& input, const std::string& default_sentence, const Flags& f,
                       bool d_model_given, Random& random);
