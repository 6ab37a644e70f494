// Chapter 24 · the self-checks: each number of the table against another way to get it.
#pragma once

#include "chapters/24_which_attention/inputs.hpp"
#include "chapters/24_which_attention/math.hpp"
#include "chapters/24_which_attention/trained_variants.hpp"
#include "common/lesson/self_check.hpp"

void check_variants(SelfChecks& check, const TrainedVariants& t, const VariantReading& reading, const Flags& f);
