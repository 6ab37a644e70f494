// Chapter 15 · the mathematics: multi-query and grouped-query attention.
//
// h query heads share g key–value heads (g divides h). Query head i reads the
// key–value head kv(i) = ⌊i / (h/g)⌋: each key–value head serves h/g consecutive
// query heads, the order of Llama's and Hugging Face's repeat_kv.
//
//   head_i = softmax(Q_i · K_kv(i)ᵀ / √d_k) · V_kv(i)
//   output = concat(head_0, …, head_{h−1}) · W_O
//
//   g = h: multi-head attention (chapter 07);  1 < g < h: grouped-query;  g = 1: multi-query
//
// Shapes: X (n × d_model); W_Q (d_model × h·d_k); W_K, W_V (d_model × g·d_k);
// W_O (h·d_v × d_model); Q_i (n × d_k); K_j, V_j (n × d_k); weights (n × n);
// concat (n × h·d_v); output (n × d_model); d_k = d_v = d_model / h.
//
// What it saves: a decoder keeps every past token's K and V (the KV cache), so per token
//   bytes = 2 (K and V) × layers × g × d_k × bytes per number,
// h/g times less than multi-head attention's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/attention/attention_weights.hpp"
#include "common/attention/multi_head.hpp"
#include "common/long_context/cache_size.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"
#include "common/numbers/random.hpp"
#include "common/numbers/random_embeddings.hpp"

// The four projections (common/attention/attention_weights.hpp), drawn at random (seeded: the
// same on every machine): W_Q (d_model × h·d_k), query head i owns columns [i·d_k, (i+1)·d_k);
// W_K, W_V (d_model × g·d_k), key–value head j owns columns [j·d_k, (j+1)·d_k); W_O
// (h·d_v × d_model), query head i's output meets rows [i·d_v, (i+1)·d_v).
struct GroupedWeights : AttentionWeights {
    // Columns (and W_O's rows) are labelled by head: "query columns" q0:0, …; "kv columns" kv0:0, ….
    MatrixList matrices() const {
        return {{"W_Q", W_Q, "", "dimensions", "query columns"},
                {"W_K", W_K, "", "dimensions", "kv columns"},
                {"W_V", W_V, "", "dimensions", "kv columns"},
                {"W_O", W_O, "", "query columns", "dimensions"}};
    }
};

// Which key–value head a query head reads.
enum class Mapping {
    interleave,  // ⌊i / (h/g)⌋: 0 0 1 1 for h = 4, g = 2 (repeat_kv, repeat_interleave)
    tiling,      // i mod g:     0 1 0 1 (torch's .repeat, numpy's tile): a different model
};

// One attention layer with h query heads over g key–value heads.
struct GroupedAttention {
    std::vector<std::size_t> kv_of;  // h entries: the key–value head query head i reads
    Matrix Q;                        // (n × h·d_k) X · W_Q
    Matrix K, V;                     // (n × g·d_k) X · W_K, X · W_V: what a KV cache keeps
    std::vector<Matrix> weights;     // h × (n × n) softmax(Q_i · K_kv(i)ᵀ / √d_k)
    Matrix concat;                   // (n × h·d_v) the heads' outputs side by side
    Matrix output;                   // (n × d_model) concat · W_O
};

// Everything the lesson shows, computed once.
struct GroupedHeads {
    std::size_t h = 1, g = 1, d_k = 1;
    GroupedAttention grouped;     // the real mapping, ⌊i / (h/g)⌋
    GroupedAttention tiled;       // the same weights read with i mod g
    Matrix W_K_repeated;          // (d_model × h·d_k) key–value head j's columns h/g times in a row
    Matrix W_V_repeated;          // (d_model × h·d_v) the same for W_V
    MultiHeadSteps as_multi_head; // chapter 07's multi_head_attention on W_Q, the repeated W_K, W_V, W_O
    std::vector<float> weights_moved;  // h: largest |tiled.weights[i] − grouped.weights[i]| of each head
    float output_moved = 0.0f;         // largest |tiled.output − grouped.output|
    // which head each column belongs to, the list's labels: "query columns" q0:0, q0:1, … (of W_Q,
    // Q, concat; W_O's rows), "kv columns" kv0:0, … (of W_K, W_V, K, V)
    Labels query_columns, kv_columns;
    // this layer's KV cache, K and V in float32 (4 bytes): all n tokens, a token, a token with g = h
    std::uint64_t cache_bytes = 0, cache_per_token = 0, cache_per_token_with_h = 0;

    // Q, K, V, each head's weights, concat and output; the repeated weights and the
    // multi-head output; the tiling's weights and output. Rows of weights are queries,
    // columns keys: both the sequence's tokens.
    MatrixList matrices() const;
};

// The n × n float matrices this lesson holds at its peak with h query heads, counted from
// the structs above, so that an --input too long for memory is refused before anything is
// computed: h weights each in grouped, tiled and as_multi_head, and in the self-checks'
// reference (common/reference's heads_by_loops, one mapping at a time), and one head's
// scores, scaled scores and weights being computed (3).
constexpr std::uint64_t square_matrices_held(std::size_t h) { return 4 * h + 3; }


// h must divide d_model (each query head gets d_model / h columns) and g must divide h (each
// key–value head serves h / g query heads); else an InputError naming `width`, where d_model
// comes from ("--d-model", or the width of an --input file).
void check_heads(std::size_t d_model, std::size_t h, std::size_t g, const std::string& width);

// The key–value head of query head i: ⌊i / (h/g)⌋.
std::size_t kv_head_of(std::size_t i, std::size_t h, std::size_t g);

// The other mapping, i mod g: the same shapes, a different model.
std::size_t kv_head_tiled(std::size_t i, std::size_t g);

// Grouped-query attention of X with the given mapping. X (n × d_model).
GroupedAttention grouped_query_attention(const Matrix& X, const GroupedWeights& W, std::size_t h, std::size_t g,
                                         Mapping mapping);

// Repeat each key–value head's block of d_k columns h/g times in a row: (d_model × g·d_k) →
// (d_model × h·d_k), so that multi-head attention on it is grouped-query attention.
Matrix repeat_kv_columns(const Matrix& W, std::size_t g, std::size_t h);

// Everything: both mappings and the multi-head equivalent.
GroupedHeads grouped_heads(const Matrix& X, const GroupedWeights& W, std::size_t h, std::size_t g);

// A real model's attention shape, where the numbers come from, and its KV cache per token
// with 2 bytes a number (float16 or bfloat16, as the models are served).
struct ModelCache {
    std::string name;
    std::uint64_t layers, h, g, d_k;
    std::vector<std::string> source;  // one line each
    std::uint64_t with_h, with_g, with_1;  // bytes a token with g = h (multi-head), the model's g, g = 1
    std::uint64_t context_mib_h, context_mib_g, context_mib_1;  // the same for context_tokens, in whole MiB
};

constexpr std::uint64_t context_tokens = 4096;  // one sequence, for the cache's size in MiB

// Mistral 7B and Llama 2 70B: the grouped-query models of common/long_context/cache_size's table.
std::vector<ModelCache> real_models();
