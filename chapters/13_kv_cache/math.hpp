// Chapter 13 · the mathematics: decoding with a KV cache.
//
// A decoder writes one token at a time, and token t's output needs its own query and
// the keys and values of every token up to t (causal attention, chapter 06):
//
//   output_t = Σ_{j ≤ t} softmax_j(q_t · k_j / √d_k) v_j,   q_t = x_t·W_Q, k_j = x_j·W_K, v_j = x_j·W_V
//
// k_j and v_j never change once token j is written, so the cache keeps them:
//
//   prefill  the prompt's p tokens at once: K_cache = X[0, p)·W_K, V_cache = X[0, p)·W_V,
//            their outputs by causal attention over the prompt
//   decode   each new token t: append k_t, v_t (the cache now holds t + 1 rows), then
//            strip_t = softmax(q_t · K_cacheᵀ / √d_k)   (1 × t+1)
//            output_t = strip_t · V_cache                (1 × d_v)
//
// q_t is used by its own step only, so it is never kept; the cache holds only tokens
// 0 … t, so the step needs no mask. Sliding window w (Mistral's rolling buffer): token t
// sees keys max(0, t−w+1) … t, and its k, v go to slot t mod w, over the token t − w
// that no later query may see.
//
// Cost of generating token t over n = t + 1 keys (multiply-add = 2 FLOPs):
//   with the cache   2·d_model·(2·d_k + d_v)   + 2·n·(d_k + d_v)                 O(n·d)
//   recomputing      2·n·d_model·(2·d_k + d_v) + Σ_{i=1..n} 2·i·(d_k + d_v)       O(n²·d)
// A model's cache per token: 2 (K and V) · layers · kv_heads · head_width · bytes per number.
//
// Shapes: X (n × d_model); W_Q, W_K (d_model × d_k); W_V (d_model × d_v);
// K_cache (t × d_k), V_cache (t × d_v); strip (1 × t); output (n × d_v).
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "common/attention/mask.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"

struct Projections {
    Matrix W_Q, W_K, W_V;  // (d_model × d_k), (d_model × d_k), (d_model × d_v)
};

// One token's query, key and value: row t of X (1 × d_model) times each projection.
struct TokenQKV {
    Matrix q, k, v;  // (1 × d_k), (1 × d_k), (1 × d_v)
};
TokenQKV project_token(const Matrix& X, std::size_t t, const Projections& W);

// Room for `capacity` tokens (zeros); rows [0, length) hold what was written so far.
struct KVCache {
    Matrix K, V;  // (capacity × d_k), (capacity × d_v)
    std::size_t length = 0;
};
KVCache empty_cache(std::size_t capacity, std::size_t d_k, std::size_t d_v);
// Rows [0, count) of m.
Matrix first_rows(const Matrix& m, std::size_t count);

// One query over the rows [0, length) of a cache.
struct Strip {
    Matrix weights;  // (1 × length) softmax(q · K_cacheᵀ / √d_k)
    Matrix output;   // (1 × d_v) weights · V_cache
};
// The keys of a strip (1 × t) whose weight ties with the largest once both are rounded to
// `decimals` decimals, in order (at least the largest itself).
std::vector<std::size_t> keys_tied_for_most(const Matrix& strip, int decimals);

// One decode step: k and v become row `length` of the cache, then q attends over
// rows 0 … length (all of them: no mask).
Strip decode_step(KVCache& cache, const TokenQKV& token);

// A sequence decoded with a cache: the first `prefill` tokens at once, then one step per token.
struct Decoding {
    std::size_t prefill = 0;
    MaskedAttentionSteps prompt;   // causal attention over the prompt (p × p); empty when p = 0
    std::vector<TokenQKV> tokens;  // q, k, v of each decoded token t = p … n−1
    std::vector<Strip> strips;     // its strip over the cache (1 × t+1)
    KVCache cache;                 // after the last step: n rows
    Matrix weights;                // (n × n) row t: token t's weights (prompt rows, then strips), 0 after t
    Matrix output;                 // (n × d_v) output_cached
};
Decoding decode_with_cache(const Matrix& X, const Projections& W, std::size_t prefill);

// Mistral's rolling buffer of w slots: token t's key and value go to slot t mod w.
struct WindowDecoding {
    std::size_t window = 0;
    Matrix band;                                   // (p × p) the prompt's band mask
    MaskedAttentionSteps prompt;                   // the prompt at once, band-masked
    KVCache buffer;                                // capacity w: the slots after the last step
    std::vector<std::size_t> token_in_slot;        // which token each filled slot holds
    std::vector<std::vector<std::size_t>> history; // after each decode step: token_in_slot
    std::size_t most_rows = 0;                     // the most rows the buffer ever held
    Matrix weights;                                // (n × n) row t: token t's weights by position
    Matrix output;                                 // (n × d_v) output_window_cached
};
constexpr std::size_t empty_slot = std::numeric_limits<std::size_t>::max();
WindowDecoding decode_with_window(const Matrix& X, const Projections& W, std::size_t prefill, std::size_t w);

// (n × n) the band mask: query i sees keys max(0, i−w+1) … i.
Matrix band_mask(std::size_t n, std::size_t w);

// The whole sequence at once, no cache: what the decoding must equal.
struct FullAttention {
    Matrix Q, K, V;                // (n × d_k), (n × d_k), (n × d_v) X · W
    MaskedAttentionSteps causal;   // masked_attention with causal_mask(n)   (common/attention)
    MaskedAttentionSteps windowed; // masked_attention with band_mask(n, w)
};
FullAttention full_attention(const Matrix& X, const Projections& W, std::size_t w);

// The decode steps a lesson prints in full: every one of up to 4, else the first two and
// the last two (the steps between get one line each).
std::vector<std::size_t> steps_in_full(std::size_t count);

// A decode step printed in full, with the cache as it holds tokens 0 … t.
struct StepInFull {
    std::size_t t = 0;     // the token's position
    std::size_t step = 0;  // its index in Decoding::tokens and Decoding::strips
    Matrix K_cache, V_cache;  // (t+1 × d_k), (t+1 × d_v) rows 0 … t of the cache
};

// Everything the lesson shows, computed once.
struct CachedDecoding {
    Projections W;
    Decoding dec;
    WindowDecoding win;
    FullAttention full;
    Matrix K_prefill, V_prefill;      // (p × d_k), (p × d_v) the cache after the prefill
    std::vector<StepInFull> in_full;  // the steps printed in full
    Matrix band;                      // (n × n) band_mask(n, w)
    Matrix window_K, window_V;        // (min(n, w) × d_k), (… × d_v) the rolling buffer's filled slots

    // In the order the lesson shows them. Rows are "tokens", the "prompt", one "token t"
    // or "tokens to t" (0 … t), or the buffer's "slots"; columns "dimensions" and the
    // projections' "query dims", "key dims" and "value dims". A step printed in full
    // names its matrices after its token: q_new_7, K_cache_7, strip_7, …; the cache after
    // the prefill is K_cache_{p−1}.
    MatrixList matrices() const;
};

// X (n × d_model), 0 ≤ prefill < n, window w ≥ 1.
CachedDecoding cached_decoding(const Matrix& X, const Projections& W, std::size_t prefill, std::size_t window);

// The n × n float matrices this lesson holds at its peak, counted from the structs above, so
// that an --input too long for memory is refused before anything is computed:
//   FullAttention: scores, scaled, masked and weights, causal and windowed       8
//   Decoding and WindowDecoding weights, the lesson's band, the self-checks'
//   causal and windowed weights by loops in double                               5
//   the strips (1 × t+1 each, n(n+1)/2 in all)                                   ½
//   a mask being built (causal_mask, band_mask), and the loops' rows             1½
constexpr std::uint64_t square_matrices_held = 15;

// FLOPs and bytes read to generate the token at position n − 1 (n keys), float32.
struct TokenCost {
    std::size_t n = 0;
    double flops_cached = 0, flops_recomputed = 0;
    double bytes_cached = 0, bytes_recomputed = 0;
    double flops_projections = 0;  // the new token's q, k, v: the same at every n
    double flops_per_float_cached() const { return flops_cached / (bytes_cached / 4.0); }  // per float read
};
TokenCost token_cost(std::size_t n, std::size_t d_model, std::size_t d_k, std::size_t d_v);

// The cost at each length of `lengths`.
std::vector<TokenCost> token_costs(const std::vector<std::size_t>& lengths, std::size_t d_model, std::size_t d_k,
                                   std::size_t d_v);

// A model's attention, one row of data/kv_cache_models.csv.
struct ModelShape {
    std::uint64_t layers, heads, kv_heads, head_width, d_model, context, window;  // window 0: none
};
// Reads a row (layers, heads, kv_heads, head_width, d_model, context, window) of whole numbers.
ModelShape model_shape(const Matrix& table, std::size_t row);
// Bytes of the cache after `tokens` tokens, layer by layer: one K and one V of
// (kv_heads × kept × head_width) each, kept = min(tokens, window) with a window.
std::uint64_t cache_bytes(const ModelShape& m, std::uint64_t tokens, std::uint64_t bytes_per_number);

// Each model of the table (rows of model_shape) and its cache: per token, after `tokens`
// tokens, and at its context length.
struct ModelCache {
    ModelShape shape;
    std::uint64_t per_token, at_tokens, at_context;  // bytes
};
std::vector<ModelCache> model_caches(const Matrix& table, std::uint64_t tokens, std::uint64_t bytes_per_number);
