// Chapter 07 · the self-checks: each claim of the lesson against something computed
// another way (the split matrix, the heads as loops in double of common/reference,
// the parameter counts of two real models, the cost in closed form).
#pragma once

#include "chapters/07_multi_head/math.hpp"
#include "common/lesson/self_check.hpp"

// X (n × d_model), the weights W and the lesson r that multi_head_forms made of them.
void check_multi_head(SelfChecks& check, const Matrix& X, const MultiHeadWeights& W, const MultiHeadForms& r);
