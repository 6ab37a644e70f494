// Chapter 06 · the self-checks: each claim of the lesson against something computed
// another way (the reference loops in double over the visible keys, the rule of the
// causal mask written out, the sentence without its pads, the first tokens alone).
#pragma once

#include <cstddef>

#include "chapters/06_masking/math.hpp"
#include "common/lesson/self_check.hpp"

// `short_n`: the real tokens of the padded sentence (the batches' first rows or last rows).
void check_masking(SelfChecks& check, const Causal& c, const Padded& p, const LeftPadded& l, std::size_t short_n);
