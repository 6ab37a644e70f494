// Chapter 14 · the self-checks: the rotations against RoPE written out in double
// (common/reference/rope_by_loops), the scores and weights against loops in double on
// those rotated queries and keys (attention_by_loops scales by 1/√d_k itself), every score
// against the closed form q · R((n − m)θ) k, the offsets, the layouts and the decay.
#pragma once

#include "chapters/14_rotary_positions/math.hpp"
#include "common/lesson/self_check.hpp"

// `base` is θ's base; `default_data`: the default sentence and projections, where the
// lesson's claims about X + PE and the mixed-up layout must hold, not only may.
void check_rope(SelfChecks& check, const RotatedScores& r, double base, bool default_data);
