// Text from a trained GPT (gpt_model.hpp), one token at a time, through a KV cache (chapter 13):
// each new token computes its own query, key and value in every block, appends the key and value
// to the cache, and attends over every cached key; nothing earlier is recomputed.
//
//   step at position p (the cache holds positions 0 … p−1):
//     x = wte[token] + wpe[p]                                   (1 × d)
//     per block: [q k v] = ln_1(x) · c_attnᵀ + b; K_h, V_h += k_h, v_h    (p+1 × d_h) each head
//                z_h = softmax(q_h K_hᵀ / √d_h) V_h; x += [z_0 …] · c_projᵀ + b; x += MLP(ln_2(x))
//     logits = ln_f(x) · wteᵀ                                    (1 × V)
//
//   next token: the k largest logits divided by the temperature τ, softmax over them, one draw:
//     P(j) = exp(ℓ_j / τ) / Σ_{i in top k} exp(ℓ_i / τ)   for j in the top k, else 0
//   τ → 0 takes the largest (greedy); τ = 1 the model's own probabilities; τ > 1 flatter.
//
// Positions are learned up to the context T only, so a cache cannot slide past it: when it is
// full, it is rebuilt from the last T/2 tokens (half a context of history, then T/2 cheap steps).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/gpt/gpt_model.hpp"

// The keys and values of every block and head so far: keys[layer][head] (positions × d_h).
struct GptCache {
    std::vector<std::vector<std::vector<float>>> keys, values;
    std::size_t length = 0;  // positions cached
};

// An empty cache for the model's blocks; an InputError for a model of another attention than MHA.
GptCache empty_cache(const GptConfig& config);

// The logits (V) after `token` at position cache.length, which it then caches. An InputError when
// the cache is full (length = context) or the token is outside the vocabulary.
std::vector<float> next_logits(const Gpt<float>& model, GptCache& cache, std::size_t token);

// The next token from the logits: the top_k largest (0: all), at temperature τ > 0; `uniform`
// is one draw from [0, 1). Ties among equal logits go to the smaller id.
std::size_t sample_token(const std::vector<float>& logits, double temperature, std::size_t top_k, double uniform);

// The probabilities that sample_token draws from (0 outside the top k), for showing them.
std::vector<double> sampling_probabilities(const std::vector<float>& logits, double temperature, std::size_t top_k);

// `count` tokens after `prompt` (at least one token), drawn with a Random(seed).
std::vector<std::size_t> generate(const Gpt<float>& model, const Tokens& prompt, std::size_t count, double temperature,
                                  std::size_t top_k, std::uint64_t seed);
