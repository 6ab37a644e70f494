// Chapter 11 · the self-checks: each claim against something computed another way
// (finite differences, the softmax's explicit Jacobian and causal attention by loops in
// double from common/reference, Adam's first step in closed form).
#pragma once

#include <string>

#include "chapters/11_learning_projections/math.hpp"
#include "common/lesson/self_check.hpp"

// `gradient_step` names the step of the gradient check ("step 5"); lr is Adam's.
void check_learning(SelfChecks& check, const Learning& r, const std::string& gradient_step, float lr);
