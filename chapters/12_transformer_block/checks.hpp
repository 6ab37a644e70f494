// Chapter 12 · the self-checks: each claim of the lesson against something computed
// another way: layer norm, attention and the FFN written out as loops in double
// (common/reference/), and what the block must do (keep the shape, treat every
// position alike, be the identity in pre-norm when its sub-layers add nothing).
#pragma once

#include "chapters/12_transformer_block/math.hpp"
#include "common/lesson/self_check.hpp"

// X (n × d_model) is the block's input; r holds its parameters and every intermediate.
void check_block(SelfChecks& check, const Matrix& X, const BlockPass& r);
