// The KV cache: what a decoder keeps of every past token, per token and layer, counted in
// numbers (elements), with DeepSeek-V2's Table 1 (DeepSeek-AI 2024, "DeepSeek-V2", §2.1.4):
//
//   multi-head attention (MHA)        2 · h · d_h       a key and a value for every head
//   grouped-query attention (GQA)     2 · g · d_h       for every key–value head (chapter 15)
//   multi-query attention (MQA)       2 · d_h           one key–value head
//   multi-head latent attention (MLA) d_c + d_h^R       one latent and one shared RoPE key (chapter 18)
//
// In bytes per token: elements × layers × bytes per number (2 in float16 or bfloat16).
// The published models whose caches the chapters compare, with where each number comes from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

// Per token and layer, in elements.
std::uint64_t mha_cache_elements(std::uint64_t h, std::uint64_t d_h);
std::uint64_t gqa_cache_elements(std::uint64_t g, std::uint64_t d_h);
std::uint64_t mqa_cache_elements(std::uint64_t d_h);
std::uint64_t mla_cache_elements(std::uint64_t d_c, std::uint64_t d_rope);

// KV-cache bytes per token: 2 (K and V) × layers × g × d_k × bytes per number.
std::uint64_t kv_cache_bytes_per_token(std::uint64_t layers, std::uint64_t g, std::uint64_t d_k,
                                       std::uint64_t bytes_per_number);

// A published model's attention shape. d_c = d_rope = 0 for a model without a latent.
struct PublishedModel {
    std::string name;
    std::uint64_t layers, h, g, d_h;  // g: its key–value heads (h for MHA and MLA)
    std::uint64_t d_c, d_rope;        // MLA's latent and decoupled RoPE key, per token
    std::uint64_t d_model, d_cq;      // the hidden width; MLA's query latent (0 without)
    std::vector<std::string> source;  // where the numbers come from, one line each
};

// Mistral 7B and Llama 2 70B (grouped-query), DeepSeek-V2 and DeepSeek-V3 (latent).
std::vector<PublishedModel> published_models();

// The model called `name` in published_models(); throws std::out_of_range when none is.
PublishedModel published_model(const std::string& name);
