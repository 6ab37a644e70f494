// Chapter 12 · the lesson's inputs: the flags and their ranges, the sentence, --heads' check
// against its width, and the block's parameters drawn as the flags say.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/block/transformer_block.hpp"
#include "common/inputs/sequence.hpp"

class Lesson;  // common/lesson/lesson.hpp: the chapter's flags are declared in it

inline const std::string default_sentence = "the cat which was black sat on the mat";

struct Flags {  // the chapter's flags
    std::size_t heads = 2;
    std::uint64_t seed = 2017;
    bool pre_norm = false, post_norm = false;  // pre-norm unless --post-norm
    std::string init = "xavier", activation = "relu";
};
// --heads, --seed, --pre-norm / --post-norm, --init and --activation.
void add_flags(Lesson& lesson, Flags& f);

struct BlockInputs {
    Sequence seq;             // --input, or the default sentence
    BlockParams params;       // drawn with --seed, --init and --activation; d_ff = 4 · d_model
    NormPlacement placement;  // --post-norm, else pre-norm
};
// `input` is --input ("" for the default sentence). Throws InputError when --heads does not
// divide d_model.
BlockInputs load_inputs(const SequenceSource& input, const Flags& flags);
