// Chapter 19 · the lesson's inputs: its flags, each with its range, and the sequence
// (random embeddings of width --d-model, or --input's file) with the head's projections.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "chapters/19_linear_attention/math.hpp"
#include "common/inputs/sequence.hpp"

class Lesson;  // common/lesson/lesson.hpp: the chapter's flags are declared in it

struct Flags {
    Settings s;
    std::string feature_map = "elu1";  // --feature-map: elu1, relu or exp (s.phi, set by load_inputs)
    std::size_t d_model = 8;           // --d-model, without --input
    std::uint64_t seed = 19;           // of the embeddings, the projections and the pairs of the memory step
    int steps = default_steps;         // --steps: Adam steps of each trained model
    bool measure = false;              // --measure: time the training steps (output varies)
    bool d_model_given = false;        // whether --d-model was on the command line (lesson.given)
};

extern const std::string default_sentence;  // "the animal didn't cross the street because it was too tired"
extern const std::string input_help;        // --input's default, as --help says it

// --feature-map, --chunk, --beta, --alpha, --d-model, --seed, --steps and --measure.
void add_flags(Lesson& lesson, Flags& f);

struct Inputs {
    Sequence seq;   // X (n × d_model)
    Projections W;  // W_Q, W_K, W_V (d_model × d_model), w_β (d_model × 1)
    Settings s;     // the flags' settings, φ included
};

// Chapter 16's copy task with --steps and --seed, for every mixer.
CopyTaskSettings copy_task_settings(const Flags& f);

// The default sentence with random embeddings of width --d-model, or --input's sequence
// (`input` not empty; a --d-model given must be its width), then random projections,
// drawn from one Random(seed), X first.
Inputs load_inputs(const SequenceSource& input, const Flags& f);
