// Chapter 02 · the self-checks: each claim of the lesson against something computed
// another way (the row sums, shifted scores, the softmax in double of common/reference/).
#pragma once

#include "chapters/02_softmax/math.hpp"
#include "common/lesson/self_check.hpp"

void check_softmax(SelfChecks& check, const NaiveAndStable& r);
