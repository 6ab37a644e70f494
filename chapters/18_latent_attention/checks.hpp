// Chapter 18 · the self-checks: both forms against common/reference's latent_attention_by_loops
// (the naive definition in double), the RoPE part against its closed form in the distance,
// the absorbed form against the naive one, and the cache and FLOP counts against the
// published figures worked by hand.
#pragma once

#include "chapters/18_latent_attention/math.hpp"
#include "common/lesson/self_check.hpp"

void check_latent(SelfChecks& check, const Matrix& X, const LatentWeights& W, const LatentForms& r);
