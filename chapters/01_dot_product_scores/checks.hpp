// Chapter 01 · the self-checks: each claim of the lesson against something computed
// another way (the loop, the transpose, the squared lengths in double precision).
#pragma once

#include <string>

#include "chapters/01_dot_product_scores/math.hpp"
#include "common/inputs/sequence.hpp"
#include "common/lesson/self_check.hpp"

// `loop_step` names the step that shows the loop ("step 2").
void check_scores(SelfChecks& check, const Sequence& seq, const DotProductScores& r, const std::string& loop_step);
