// Chapter 03 · the self-checks: each claim of the lesson against something computed
// another way (the closed form of the variance, finite differences of the softmax, the
// attention weights of common/reference/ in double).
#pragma once

#include "chapters/03_scaling/math.hpp"
#include "common/lesson/self_check.hpp"

void check_scaling(SelfChecks& check, const ScaledAndUnscaled& r);
