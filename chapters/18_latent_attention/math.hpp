// Chapter 18 · the mathematics: multi-head latent attention (MLA, DeepSeek-V2 §2.1).
//
// Keys and values come from one latent per token, c_KV, d_c wide: the only thing of the
// content a decoder caches. Each head's key and value are read back out of it:
//
//   c_KV = X · W_DKV          K = c_KV · W_UK          V = c_KV · W_UV
//   c_Q  = X · W_DQ           Q = c_Q · W_UQ           (queries through their own latent)
//   K_rope = RoPE(X · W_KR)   one key of d_h^R for ALL heads (the "decoupled" RoPE key)
//   Q_rope = RoPE(c_Q · W_QR) one RoPE query of d_h^R per head
//
//   head i: weights_i = causal softmax((Q_i · K_iᵀ + Q_rope_i · K_ropeᵀ) / √(d_h + d_h^R))
//   output = concat_i(weights_i · V_i) · W_O
//
// The absorbed form: Q_i · K_iᵀ = Q_i · (c_KV · W_UK_i)ᵀ = (Q_i · W_UK_iᵀ) · c_KVᵀ, and
// weights_i · V_i · W_O_i = (weights_i · c_KV) · (W_UV_i · W_O_i). Fold W_UK into the query
// and W_UV into W_O, and a decoding token reads the cached c_KV and K_rope, nothing else.
// RoPE cannot be folded that way: key j turned, c_KV_j · W_UK_i · R_j, puts its rotation R_j
// between the query and c_KV_j, and R_j depends on the key's position j: no one matrix folds
// into the query for every key. Hence the separate RoPE key, turned before it is cached.
//
// Shapes: X (n × d_model); c_KV (n × d_c); K, V, Q (n × h·d_h); K_rope (n × d_h^R);
// c_Q (n × d_c'); Q_rope (n × h·d_h^R); weights (n × n); concat (n × h·d_h);
// Q_absorbed (n × h·d_c); latent_concat (n × h·d_c); W_UVO (h·d_c × d_model);
// output (n × d_model). Head i owns columns [i·w, (i+1)·w) of a matrix h·w wide.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/attention/latent_weights.hpp"
#include "common/long_context/cache_size.hpp"
#include "common/long_context/decode_flops.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"

// The eight projections (common/attention/latent_weights.hpp), with the labels of their rows and columns.
struct ChapterWeights : LatentWeights {
    MatrixList matrices() const;
};

// One row of the cache table: a model, an attention, its cache per token.
struct CacheRow {
    std::string model, attention;  // "DeepSeek-V3", "MLA"
    std::uint64_t layers = 0;
    std::uint64_t elements = 0;        // per token and layer
    std::uint64_t bytes_per_token = 0; // all layers, 2 bytes a number (bfloat16)
    std::uint64_t context_bytes = 0;   // for context_tokens tokens
};
constexpr std::uint64_t context_tokens = 131072;  // a 128 k context
constexpr std::uint64_t short_context = 4096;

// Mistral 7B, Llama 2 70B (as published); DeepSeek-V3's shape with MHA, GQA (g = 8), MQA, and MLA
// as published; DeepSeek-V2's MLA.
std::vector<CacheRow> cache_table();

// Everything the lesson shows, computed once.
struct LatentForms {
    LatentShape s;
    // the naive form
    Matrix c_KV;                  // (n × d_c) X · W_DKV: what the cache keeps of the content
    Matrix K, V;                  // (n × h·d_h) c_KV · W_UK, c_KV · W_UV
    Matrix K_rope_unturned;       // (n × d_h^R) X · W_KR
    Matrix K_rope;                // (n × d_h^R) RoPE of it: cached too
    Matrix c_Q;                   // (n × d_c') X · W_DQ
    Matrix Q;                     // (n × h·d_h) c_Q · W_UQ
    Matrix Q_rope_unturned;       // (n × h·d_h^R) c_Q · W_QR
    Matrix Q_rope;                // (n × h·d_h^R) RoPE of each head's block
    std::vector<Matrix> weights;  // h × (n × n)
    Matrix concat;                // (n × h·d_h)
    Matrix output_naive;          // (n × d_model) concat · W_O
    // the absorbed form
    Matrix Q_absorbed;                     // (n × h·d_c) head i: Q_i · W_UK_iᵀ
    Matrix W_UVO;                          // (h·d_c × d_model) head i's rows: W_UV_i · W_O_i
    std::vector<Matrix> weights_absorbed;  // h × (n × n)
    Matrix latent_concat;                  // (n × h·d_c) head i: weights_i · c_KV
    Matrix output_absorbed;                // (n × d_model) latent_concat · W_UVO
    float largest_difference = 0.0f;       // max |output_absorbed − output_naive|
    // the cost
    std::uint64_t cache_elements = 0, mha_elements = 0;  // per token: d_c + d_h^R, and 2·h·d_h
    DecodeFlops flops_here;  // at this run's sizes, L = n
    // at DeepSeek-V3's sizes: L = 4096 and L = context_tokens; one more key costs v3_per_key
    DecodeFlops flops_v3_short, flops_v3_long, v3_per_key;
    // labels of the columns: "latent" c0 …, "query latent" cq0 …, "head columns" h0:0 …,
    // "rope" r0 …, "head rope" h0:r0 …, "absorbed columns" h0:c0 …
    Labels latent, query_latent, head_columns, rope, head_rope, absorbed_columns;

    MatrixList matrices() const;
};

// The n × n float matrices this lesson holds at its peak with h heads: h weights in each form
// and in the reference of the self-checks, a mask, and a head's scores being computed (4).
constexpr std::uint64_t square_matrices_held(std::size_t h) { return 3 * h + 5; }

// d_h^R must be even (RoPE turns pairs); else an InputError naming --rope-dim.
void check_shape(const LatentShape& s);

// The naive form, then the absorbed form, of X (n × d_model).
LatentForms latent_forms(const Matrix& X, const LatentWeights& W, const LatentShape& s);
