// Chapter 22 · the lesson's inputs: the recipe's flags, each with its range, and what the
// sentence, the prompt and sampling take; a recipe out of reach is refused from an estimate.
#pragma once

#include <cstdint>
#include <string>

#include "common/language_model/recipe_flags.hpp"

class Lesson;  // common/lesson/lesson.hpp: the chapter's flags are declared in it

struct Flags {
    Recipe recipe = default_recipe();
    std::string text = "The cat sat on the mat.";  // --text: the sentence the model reads
    std::string prompt = "The whale";              // --prompt: where samples start
    double temperature = 0.8, top_p = 1.0;
    std::size_t top_k = 20, sample_tokens = 40;
    std::size_t generate = 0;  // --generate N: N tokens written one at a time, each step shown
    bool greedy = false;       // --greedy: the most likely token each time
    std::uint64_t sample_seed = 1;
    std::size_t layer = 0;  // --layer: the block whose heads the terminal prints
};

void add_flags(Lesson& lesson, Flags& f);
