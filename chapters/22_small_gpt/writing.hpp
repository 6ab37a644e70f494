// Chapter 22 · the model writing, one token at a time (--generate N): for each token the five
// likeliest next tokens with the model's odds and the odds drawn from, the pick, and where the new
// token looks in every head, read from the cache (math.hpp's write_tokens).
#pragma once

#include "chapters/22_small_gpt/math.hpp"
#include "common/language_model/language_model.hpp"

class Lesson;
struct Flags;

// The writing, its tokens labelled for the dumps and the page.
Writing write_labelled(Lesson& lesson, const LanguageModel& lm, const Flags& f, const Tokens& prompt);
void show_writing(Lesson& lesson, const LanguageModel& lm, const Flags& f, const Writing& w);
