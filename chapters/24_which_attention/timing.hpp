// Chapter 24 · --measure: what each variant costs in time on this machine. Measured, not
// computed: the numbers change from run to run and from machine to machine (the golden output
// and the self-checks never read them).
//
//   ms per step      the mean of `steps` training steps (forward, backward, AdamW) of B windows
//                    of T tokens, after one step that is not counted, on a copy of the trained model
//   ms per window    the median of `repeats` forward passes of one window of T tokens
//   ms per token     decoding at a long context: a fresh model of this shape (the time of a step
//                    does not depend on the weights' values), its cache (gpt_decoding.hpp) filled
//                    with the first long_context held-out tokens, then the median of `decodes`
//                    decodings of the next token, each from a copy of that cache
#pragma once

#include <cstddef>
#include <vector>

#include "chapters/24_which_attention/trained_variants.hpp"

struct VariantTimes {
    double ms_per_step = 0, ms_per_window = 0, ms_per_token = 0;
};

constexpr std::size_t long_context = 1024;

VariantTimes time_variant(const TrainedVariant& v, std::size_t batch, std::size_t steps = 10, std::size_t repeats = 20,
                          std::size_t decodes = 100);
