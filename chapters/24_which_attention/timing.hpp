// Chapter 24 · --measure: what each variant costs in time on this machine. Measured, not
// computed: the numbers change from run to run and from machine to machine (the golden output
// and the self-checks never read them).
//
//   ms per step      the mean of `steps` training steps (forward, backward, AdamW) of B windows
//                    of T tokens, after one step that is not counted, on a copy of the trained model
//   ms per window    the median of `repeats` forward passes of one window of T tokens
#pragma once

#include <cstddef>
#include <vector>

#include "chapters/24_which_attention/trained_variants.hpp"

struct VariantTimes {
    double ms_per_step = 0, ms_per_window = 0;
};

VariantTimes time_variant(const TrainedVariant& v, std::size_t batch, std::size_t steps = 10, std::size_t repeats = 20);
