// Chapter 13 · the self-checks: the step-by-step decoding against full causal attention
// at once (common/math) and against attention written as loops in double
// (common/reference/), causal and windowed; the cost table and the models' caches
// against their closed forms.
#pragma once

#include <vector>

#include "chapters/13_kv_cache/experiment.hpp"
#include "chapters/13_kv_cache/math.hpp"
#include "common/lesson/self_check.hpp"

// The cost table was counted at `costs` for one head of width d_model → d (d_k = d_v = d);
// `models` after `tokens` tokens; `measured` is empty without --measure.
void check_decoding(SelfChecks& check, const KVCacheLesson& r, const std::vector<TokenCost>& costs,
                    std::size_t d_model, std::size_t d, const std::vector<ModelCache>& models, std::uint64_t tokens,
                    std::uint64_t bytes_per_number, const std::vector<MeasuredToken>& measured);
