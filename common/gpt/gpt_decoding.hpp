// A GPT read one token at a time (chapter 13's cache, for every attention of gpt_attention.hpp):
// each new token computes its own query, key and value in every block, keeps what later tokens
// will read, and attends over what is kept; nothing earlier is recomputed.
//
//   step at position p (the cache holds what positions 0 … p−1 left):
//     x = wte[token] (+ wpe[p])                                             (1 × d)
//     per block: [q k v] = ln_1(x) · c_attnᵀ + b, then per head h (key–value head j = h/(H/g)):
//       softmax      keys_j, values_j += k_j, v_j (turned by p with RoPE); with a window of w
//                    and s sinks the oldest key past the sinks leaves when s + w are kept;
//                    z_h = softmax(q_h K_jᵀ / √d_h) V_j over the keys kept (top-k: the k of
//                    the largest q_h · k; a sink logit: one more column e^{s_h}, dropped)
//       MLA          keeps c_KV and RoPE(k_R) (d_c + r a token) and never the keys: with
//                    kv_up's rows for head h's keys U_h (d_h × d_c) and values W_h,
//                    q_h · k_h,j = (U_hᵀ q_h) · c_j + q_h · b_h (the last term the same for
//                    every j: softmax drops it), and Σ_j a_j v_h,j = W_h (Σ_j a_j c_j) + b'_h
//                    (the weights sum to 1): the up-projection is absorbed into the query and
//                    the output
//       linear       S_h += φ(k) vᵀ, n_h += φ(k); z_h = φ(q)ᵀ S_h / (φ(q) · n_h)
//       delta        S_h = α S_h + β k̂ (v − (α S_h)ᵀ k̂)ᵀ (α = 1 ungated); z_h = S_hᵀ q̂
//     x += [z_0 …] · c_projᵀ + b; x += MLP(ln_2(x)); logits = ln_f(x) · wteᵀ      (1 × V)
//
// What a layer keeps after T tokens is chapter 24's "kept per token": T·2·g·d_h floats (a window
// with sinks: min(T, w + s) keys), MLA's T·(d_c + r), linear's H·(d_h² + d_h), delta's H·d_h².
#pragma once

#include <cstddef>
#include <vector>

#include "common/gpt/gpt_model.hpp"

// What every block keeps so far.
struct GptCache {
    // [layer][key–value head] (keys kept × width), position order: softmax's keys and values;
    // MLA's [layer][0] holds each token's c_KV and RoPE(k_R) side by side, and values are empty
    std::vector<std::vector<std::vector<float>>> keys, values;
    // [layer][head]: linear attention's S (d_h × d_h) then n (d_h); the delta rules' S (d_h × d_h)
    std::vector<std::vector<std::vector<float>>> states;
    Mat<float> rope_cos, rope_sin;  // (T × r/2) the turns of every position (RoPE, MLA)
    std::size_t length = 0;         // tokens read
    // [l·H + h] the newest token's attention weights over the keys kept, oldest first (softmax
    // heads with keys; empty for MLA's latents and for the heads that keep a state)
    std::vector<std::vector<float>> newest_weights;
};

// An empty cache for the model's blocks.
GptCache empty_cache(const GptConfig& config);

// The logits (V) after `token` at position cache.length, which the cache then keeps. An
// InputError when the cache is full (length = context) or the token is outside the vocabulary.
std::vector<float> next_logits(const Gpt<float>& model, GptCache& cache, std::size_t token);

// The floats the cache keeps for one block (chapter 24's kept per token, read off the cache).
std::size_t cached_floats(const GptCache& cache, std::size_t layer);
