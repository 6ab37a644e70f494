// Chapter 18 · the lesson's inputs: its flags, and the sequence (random embeddings of width
// --d-model, or --input's file), checked before anything is printed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "chapters/18_latent_attention/math.hpp"
#include "common/inputs/sequence.hpp"

class Lesson;  // common/lesson/lesson.hpp: the chapter's flags are declared in it

struct Flags {
    LatentShape s{4, 4, 8, 12, 4};  // --heads, --head-dim, --latent, --q-latent, --rope-dim
    std::size_t d_model = 16;       // --d-model
    std::uint64_t seed = 18;        // of the random embeddings and weights
};

// --heads (1 to 64), --head-dim (1 to 64), --latent and --q-latent (1 to 512), --rope-dim
// (2 to 64, even), --d-model (1 to 512), --seed.
void add_flags(Lesson& lesson, Flags& f);

extern const std::string default_sentence;  // "the cat sat on the mat"
extern const std::string input_help;        // --input's default, as --help says it

// The sequence and the weights of the lesson, drawn from one Random(f.seed), X first.
struct Inputs {
    Sequence seq;      // X (n × d_model)
    ChapterWeights W;  // the eight projections
};

// The default sentence with random embeddings of width f.d_model, or --input's sequence
// (`input` not empty; a --d-model given, `d_model_given`, must be its width), then random
// weights. Throws InputError when --rope-dim is odd.
Inputs draw_inputs(const SequenceSource& input, const Flags& f, bool d_model_given);
