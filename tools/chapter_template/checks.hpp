// Chapter @NN@ · the self-checks: each claim of the lesson against something computed
// another way (the reference attention, loops in double precision).
#pragma once

#include "chapters/@folder@/math.hpp"
#include "common/inputs/sequence.hpp"
#include "common/lesson/self_check.hpp"

void check_self_attention(SelfChecks& check, const Sequence& seq, const SelfAttention& r);
