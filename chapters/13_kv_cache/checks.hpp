// Chapter 13 · the self-checks: the step-by-step decoding against full causal attention
// at once (common/attention) and against attention written as loops in double
// (common/reference/), causal and windowed; the cost table and the models' caches
// against their closed forms.
#pragma once

#include <vector>

#include "chapters/13_kv_cache/experiment.hpp"
#include "chapters/13_kv_cache/math.hpp"
#include "common/lesson/self_check.hpp"

// The cost table was counted for one head of width d_model → d (d_k = d_v = d); the models'
// caches after table_tokens tokens; `measured` is empty without --measure.
void check_decoding(SelfChecks& check, const CachedDecoding& r, const DecodingCosts& costs);
