// Chapter 19 · the self-checks: each claim of the lesson against something computed another
// way (common/reference/linear_attention_by_loops and delta_rule_by_loops, in double; closed
// forms; properties).
#pragma once

#include "chapters/19_linear_attention/math.hpp"
#include "common/lesson/self_check.hpp"

// Parts 1 and 2: the three forms of linear attention, the delta rule and what a state holds.
void check_recurrences(SelfChecks& check, const Recurrences& r, const Settings& s);

// Part 3: each mixer's backward pass against finite differences, and each trained model's
// heads on a held-out sequence against the reference loops.
void check_side_by_side(SelfChecks& check, const SideBySide& r);
