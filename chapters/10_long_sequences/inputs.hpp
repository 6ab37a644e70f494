// Chapter 10 · the lesson's inputs: the flags and their ranges, into the Settings of
// experiment.hpp (checked_settings then parses --pairs and checks the memory).
#pragma once

#include "chapters/10_long_sequences/experiment.hpp"

class Lesson;  // common/lesson/lesson.hpp: the chapter's flags are declared in it

// --max-n, --d, --block-q, --block-k, --window, --pairs, --budget-s and --streaming-only.
void add_flags(Lesson& lesson, Settings& s);
