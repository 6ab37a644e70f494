// Chapter 24 · the lesson's inputs: the recipe every variant trains by (chapter 22's flags, a
// smaller default: twelve models train on a first run), and how many held-out windows and passages
// measure them.
#pragma once

#include <cstddef>
#include <string>

#include "common/language_model/recipe_flags.hpp"

class Lesson;  // common/lesson/lesson.hpp: the chapter's flags are declared in it

// Chapter 22's recipe at d_model 64 (d_h 16) and 400 steps, one held-out measurement at the end.
Recipe variants_recipe();

struct Flags {
    Recipe recipe = variants_recipe();
    std::size_t windows = 200;  // --windows: held-out windows of T + 1 tokens
    std::size_t passages = 40;  // --passages: held-out passages of T/2 tokens, each written twice
    std::size_t seeds = 4;      // --seeds: each variant trained with --seed, --seed + 1, …
    std::string variant = "mha";                   // --variant: whose reading of --text is shown
    std::string text = "The cat sat on the mat.";  // --text: the sentence it reads
    bool measure = false;  // --measure: time each variant (output varies)
};

void add_flags(Lesson& lesson, Flags& f);
