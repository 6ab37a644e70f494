// Chapter 23 · the self-checks: each intervention computed another way.
#pragma once

#include "chapters/23_inside_the_model/math.hpp"
#include "common/language_model/language_model.hpp"
#include "common/lesson/self_check.hpp"

void check_inside(SelfChecks& check, const LanguageModel& lm, const HeadScores& scores, const Removals& removals,
                  const Patching& patching, const SentenceLens& lens, const Composition& composition,
                  const ShiftPatching& shifted, const Probe& probe, const Tokens& clean, const Tokens& corrupt, const Tokens& sentence);
