// Chapter 05 · the self-checks: each claim of the lesson against something computed
// another way (attention in double from common/reference/, the product through
// W_Q · W_Kᵀ, the row sums).
#pragma once

#include <string>

#include "chapters/05_projections/math.hpp"
#include "common/lesson/self_check.hpp"

// Rounding alone leaves float scores of size S asymmetric by ~S · 1e-7, so an asymmetry
// counts only above 1e-3 of the largest score (and above 1e-3).
double asymmetry_threshold(const Matrix& scores);

// X (n × d_model), r its projections and attention. `law` is the law sentence's, with its
// tokens (nullptr when it does not run). `matrix_step` and `loop_step` name the steps that
// show the two forms of attention ("step 4").
void check_projections(SelfChecks& check, const Matrix& X, const Projected& r, const RawAndProjected* law,
                       const Labels& law_tokens, const std::string& matrix_step, const std::string& loop_step);
