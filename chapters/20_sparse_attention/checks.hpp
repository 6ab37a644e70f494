// Chapter 20 · the self-checks: each claim of the lesson against the reference loops in double
// (common/reference/attention_by_loops) or a property computed apart from math.cpp.
#pragma once

#include "chapters/20_sparse_attention/math.hpp"
#include "common/lesson/self_check.hpp"

void check_sparse(SelfChecks& check, const ReadModel& r, const SinkModel& sink);
