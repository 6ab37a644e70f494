// The steps model, scores, removals, induction and in-context measure the model on held-out
// text: most of a run's seconds, and nothing in them depends on your sentence. They are kept
// (common/training/kept_file.hpp) under the program, the model's numbers, the held-out tokens and
// the probe's settings, and read back by the next run with all four the same: a new sentence
// then costs only the steps that read it, in the terminal and in the page.
#pragma once

#include "chapters/23_inside_the_model/math.hpp"

struct Measurements {
    HeadScores scores;
    Removals removals;
};

// score_heads and remove_heads, or what a run with the same program, model, text and probe kept.
Measurements measured(const Gpt<float>& model, const Tokens& held_out, const Probe& probe);
