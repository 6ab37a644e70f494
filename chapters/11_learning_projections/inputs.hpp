// Chapter 11 · the lesson's inputs: the flags and their ranges, and the sentence whose
// attention is shown (--input, read and checked against the chapter's nine dimensions).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "chapters/11_learning_projections/math.hpp"

class Lesson;  // common/lesson/lesson.hpp: the chapter's flags are declared in it

struct Flags {  // the chapter's flags
    int steps = 150;
    float lr = 0.05f;
    std::uint64_t seed = 11;
    std::size_t d_k = 3;
};
// --steps, --lr, --seed and --d-k.
void add_flags(Lesson& lesson, Flags& f);

// The sentence of --input, or the default one ("" for it): queen (red), box (blue),
// king (green), it, she, he. Throws InputError when the file's columns are not the
// chapter's dimensions.
Sentence shown_sentence(const std::string& input);
