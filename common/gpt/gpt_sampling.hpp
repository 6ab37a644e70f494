// Text from a trained GPT (gpt_model.hpp), one token at a time, through its cache
// (gpt_decoding.hpp: chapter 13's KV cache, or what another attention keeps): each new token's
// logits, then a draw.
//
//   next token: the k largest logits divided by the temperature τ, softmax over them, one draw:
//     P(j) = exp(ℓ_j / τ) / Σ_{i in top k} exp(ℓ_i / τ)   for j in the top k, else 0
//   τ → 0 takes the largest (greedy); τ = 1 the model's own probabilities; τ > 1 flatter.
//   top-p (nucleus, Holtzman et al. 2019): then only the most likely tokens whose P add up to p
//   at least (the fewest such, largest first; always one), their P scaled to sum to 1.
//
// Positions are learned up to the context T only, so a cache cannot slide past it: when it is
// full, it is rebuilt from the last T/2 tokens (half a context of history, then T/2 cheap steps).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/gpt/gpt_decoding.hpp"
#include "common/gpt/gpt_model.hpp"

// The next token from the logits: the top_k largest (0: all), at temperature τ > 0, within
// top_p in (0, 1]; `uniform` is one draw from [0, 1). Ties among equal logits go to the smaller id.
std::size_t sample_token(const std::vector<float>& logits, double temperature, std::size_t top_k, double uniform,
                         double top_p = 1.0);

// The probabilities that sample_token draws from (0 outside the top k and the top p), for showing them.
std::vector<double> sampling_probabilities(const std::vector<float>& logits, double temperature, std::size_t top_k,
                                           double top_p = 1.0);

// `count` tokens after `prompt` (at least one token), drawn with a Random(seed).
std::vector<std::size_t> generate(const Gpt<float>& model, const Tokens& prompt, std::size_t count, double temperature,
                                  std::size_t top_k, std::uint64_t seed, double top_p = 1.0);
