// A fresh GPT with every number moved at random (biases and LayerNorm's γ, β away from 0 and 1,
// weights larger than 0.02): each part of a forward or backward pass then carries weight, and
// the logits differ from token to token. For the GPT's tests.
#pragma once

#include <cstdint>

#include "common/gpt/gpt_model.hpp"
#include "common/numbers/random.hpp"

inline Gpt<float> shaken_gpt(const GptConfig& config, std::uint64_t seed) {
    Gpt<float> m = fresh_gpt(config, seed);
    Random rng(seed + 100);
    for (NamedParameter<float>& p : named_parameters(m))
        for (float& x : *p.tensor) x += 0.3f * rng.normal();
    return m;
}
