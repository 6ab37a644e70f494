// Chapter 16 · the lesson's inputs: its flags, each with its range, read into the
// training's Settings.
#pragma once

#include <string>

#include "chapters/16_induction_head/math.hpp"

class Lesson;  // common/lesson/lesson.hpp: the chapter's flags are declared in it

struct Flags {
    Settings s;
    std::string positions = "learned";  // --positions: learned or none (s.learned_positions, set by settings())
};

// --steps, --lr, --seed, --heads, --layers, --vocab, --half-length and --positions.
void add_flags(Lesson& lesson, Flags& f);

// The Settings the flags give, once they are parsed.
Settings settings(const Flags& f);
