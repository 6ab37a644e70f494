// What a decoder computes for ONE new token at position L − 1 (L keys, itself included), in
// FLOPs (a multiply and an add are 2), per layer, for each way of doing multi-head latent
// attention (MLA, chapter 18; DeepSeek-AI 2024, "DeepSeek-V2", §2.1) — and what the side-by-side
// table of chapter 20 (attention_variants.hpp) counts for MLA.
#pragma once

#include <cstdint>

#include "common/attention/latent_weights.hpp"
#include "common/long_context/cache_size.hpp"

struct DecodeFlops {
    std::uint64_t shared = 0;        // c_KV, k_R, c_Q, q_C, q_R of the new token: the same in every form
    std::uint64_t naive_latent = 0;  // naive over a latent cache: K and V of all L tokens rebuilt
    std::uint64_t naive_kv = 0;      // naive over a cache of K and V (as large as MHA's)
    std::uint64_t absorbed = 0;      // absorbed: attends over c_KV and K_rope directly
};
DecodeFlops decode_flops(std::uint64_t d_model, const LatentShape& s, std::uint64_t L);

// A published model's MLA shape (DeepSeek-V2, -V3): h, d_h, d_c, d_c', d_h^R.
LatentShape shape_of(const PublishedModel& m);
