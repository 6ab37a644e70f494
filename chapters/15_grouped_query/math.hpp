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
#include <vector>

#include "common/math/matrix.hpp"
#include "common/math/multi_head.hpp"
#include "common/math/random.hpp"
#include "common/math/random_embeddings.hpp"

// The four projections, drawn at random (seeded: the same on every machine).
struct GroupedWeights {
    Matrix W_Q;       // (d_model × h·d_k); query head i owns columns [i·d_k, (i+1)·d_k)
    Matrix W_K, W_V;  // (d_model × g·d_k); key–value head j owns columns [j·d_k, (j+1)·d_k)
    Matrix W_O;       // (h·d_v × d_model); query head i's output meets rows [i·d_v, (i+1)·d_v)
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

// The definition in double, with nothing shared with the float code, and the sizes its
// float rounding is relative to (the self-checks' tolerances follow them).
struct ByLoops {
    std::vector<Matrix> weights;  // h × (n × n)
    Matrix output;                // (n × d_model)
    double score_size = 0.0;      // max over heads, q, j of Σ_c |q_c|·|k_jc| / √d_k, |q_c| ≤ Σ_d |x_d w_dc|
    double value_size = 0.0;      // max |V| · max over columns of Σ_c |W_O(c, d)|
};

// Everything the lesson shows, computed once.
struct GroupedLesson {
    std::size_t h = 1, g = 1, d_k = 1;
    GroupedAttention grouped;     // the real mapping, ⌊i / (h/g)⌋
    GroupedAttention tiled;       // the same weights read with i mod g
    Matrix W_K_repeated;          // (d_model × h·d_k) key–value head j's columns h/g times in a row
    Matrix W_V_repeated;          // (d_model × h·d_v) the same for W_V
    MultiHeadSteps as_multi_head; // chapter 07's multi_head_attention on W_Q, the repeated W_K, W_V, W_O
    ByLoops by_loops;             // the definition again, in double (interleave)
    ByLoops tiled_by_loops;       // and with the tiling
};

// The n × n float matrices this lesson holds at its peak with h query heads, counted from
// the structs above, so that an --input too long for memory is refused before anything is
// computed: h weights each in grouped, tiled, as_multi_head, by_loops and tiled_by_loops,
// and one head's scores, scaled scores and weights being computed (3).
constexpr std::uint64_t square_matrices_held(std::size_t h) { return 5 * h + 3; }

// W_Q, W_K, W_V with standard deviation √(2/d_model) (the heads' softmaxes peak), W_O with 1/√d_model.
GroupedWeights random_weights(std::size_t d_model, std::size_t h, std::size_t g, Random& random);

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

// Everything: both mappings, the multi-head equivalent, the loops in double.
GroupedLesson grouped_lesson(const Matrix& X, const GroupedWeights& W, std::size_t h, std::size_t g);

// The definition as loops in double with nothing shared: each key–value head j serves
// the query heads of its group (i = j·(h/g) + r, or i = r·g + j for the tiling).
ByLoops grouped_by_loops(const Matrix& X, const GroupedWeights& W, std::size_t h, std::size_t g, Mapping mapping);

// KV-cache bytes per token: 2 (K and V) × layers × g × d_k × bytes per number.
std::uint64_t kv_cache_bytes_per_token(std::uint64_t layers, std::uint64_t g, std::uint64_t d_k,
                                       std::uint64_t bytes_per_number);
