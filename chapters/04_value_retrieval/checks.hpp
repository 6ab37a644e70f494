// Chapter 04 · the self-checks: each claim of the lesson against something computed
// another way (the matrix product, the limit T → 0, the printed combinations, attention
// in double from common/reference/).
#pragma once

#include "chapters/04_value_retrieval/math.hpp"
#include "common/lesson/self_check.hpp"

// X (n × d_model): the sentence that looked itself up.
void check_value_retrieval(SelfChecks& check, const Matrix& X, const ValueRetrieval& r);
