// Chapter 15 · the self-checks: the mapping against repeat_kv's order written out, the
// layer against common/reference's heads_by_loops (loops in double, with both mappings),
// against chapter 07's multi-head attention, and the KV-cache sizes against their sums.
#pragma once

#include "chapters/15_grouped_query/math.hpp"
#include "common/lesson/self_check.hpp"

void check_grouped(SelfChecks& check, const Matrix& X, const GroupedWeights& W, const GroupedHeads& r);
