// Chapter 20 · the mathematics: attention that forgets on purpose.
//
// Causal attention lets query i read every key j ≤ i. Long-context models read fewer:
//   window w          i − w < j ≤ i                        (Mistral, Gemma 3)        w keys
//   window + s sinks  j < s  or  i − w < j ≤ i             (StreamingLLM)            s + w keys
//   top-k             the k keys j ≤ i of highest index score  (DeepSeek-V3.2)       k keys
//                     index[i, j] = (x_i W_IQ) · (x_j W_IK),  W_IQ, W_IK (d × r), r small
// and each reads them with the same softmax over the keys it kept:
//   out_i = Σ_{j kept} softmax_j(q_i · k_j / √d_h) v_j
// A learned sink logit σ (gpt-oss) adds one more term to the denominator, a key with no value:
//   a_ij = e^{s_ij} / (e^{σ} + Σ_{j' ≤ i} e^{s_ij'})   (rows sum to 1 − sink share ≤ 1);  σ → −∞: softmax
//
// Decoding with a window keeps a rolling buffer (chapter 13): s sink slots that never change,
// and w slots where token t ≥ s goes to slot t mod w, over the token t − w that no later
// query reads. The buffer holds at most s + w keys and values, however long the sequence.
//
// Shapes: n tokens, d = d_model, d_h the head width, r the indexer's width; Q, K, V (n × d_h)
// of one head; weights (n × n) by position; topk_index (n × k).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/copy_model/attention_only_model.hpp"
#include "common/copy_model/attention_variants.hpp"
#include "common/copy_model/copy_task.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"

// The flags' defaults, and what the sweeps try (n = 32: the copy is L − 1 = 15 tokens back).
// The defaults are those of the side-by-side table at the copy task's scale (CopyScale).
constexpr std::size_t default_window = 8, default_sinks = 4, default_top_k = 4, default_rank = 2;
constexpr int default_steps = 1000;       // --steps: every training of the chapter
constexpr std::size_t model_heads = 4;    // per layer, d_h = 8: GQA can have 2 groups of 2 heads
constexpr std::array<std::size_t, 10> swept_windows = {32, 24, 17, 16, 15, 12, 8, 4, 2, 1};
constexpr std::array<std::size_t, 7> swept_top_k = {32, 16, 12, 8, 4, 2, 1};

// One query over the keys and values of a rolling buffer of s + w slots.
struct RollingDecoding {
    std::size_t window = 0, sinks = 0;
    Matrix weights;  // (n × n) row t: token t's weights, by position (0 for keys not kept)
    Matrix output;   // (n × d_v)
    Matrix slots;    // (n × (s + w)) after step t, the position each slot holds (−1: empty)
};
// Q (n × d_h), K (n × d_h), V (n × d_v), window w ≥ 1, sinks s ≥ 0.
RollingDecoding decode_rolling(const Matrix& Q, const Matrix& K, const Matrix& V, std::size_t w, std::size_t s);

// Each query keeps the k keys j ≤ i with the highest index[i, j] (all i + 1 when i + 1 ≤ k).
struct TopK {
    Matrix index;    // (n × k) the kept positions, highest score first; −1 where fewer than k keys exist
    Matrix weights;  // (n × n) softmax over the kept keys, 0 elsewhere
    Matrix output;   // (n × d_v)
};
TopK topk_attention(const Matrix& Q, const Matrix& K, const Matrix& V, const Matrix& index, std::size_t k);

// Causal attention with a sink logit σ (−∞ allowed: plain softmax).
struct SinkAttention {
    Matrix weights;     // (n × n) rows sum to 1 − sink_share
    Matrix sink_share;  // (n × 1) e^{σ} / (e^{σ} + Σ_j e^{s_ij})
    Matrix output;      // (n × d_v)
};
SinkAttention attention_with_sink(const Matrix& Q, const Matrix& K, const Matrix& V, float sink_logit);

// Where a model's heads put their weight on the first half of the held-out sequences, where
// there is nothing to copy: queries 1 ≤ i < L (query 0 has only itself), every head.
// (heads × 3) the mean weight on position 0, on the current token, and what the row misses
// (1 − Σ_j A[i, j]: the sink's share; 0 without one).
Matrix first_half_shares(const ModelForward<float>& f, std::size_t half);
// What position 0 (or the current token) would get from uniform rows: mean_{1 ≤ i < L} 1/(i + 1).
double uniform_share(std::size_t half);

// FLOPs (a multiply and an add are 2) per decoded token and head at n keys, d = d_model:
//   full attention  4·n·d_h (q·k_j and a_j v_j over n keys);  top-k: 4·min(k, n)·d_h
//   the indexer     4·d·r (q^I and k^I of the new token) + 2·n·r (q^I · k^I_j for every key)
struct TopKFlops {
    double indexer = 0, attention = 0, full = 0;
};
TopKFlops topk_flops(std::size_t n, std::size_t d, std::size_t d_h, std::size_t r, std::size_t k);
constexpr std::array<std::size_t, 3> flops_lengths = {32, 4096, 131072};

// Everything the lesson shows of one trained head on one held-out sequence.
struct OneHead {
    std::size_t head = 0;          // l·heads + h, the last layer's head that copies best
    Matrix X_layer;                // (n × d) the residual stream the head reads
    Matrix W_IQ, W_IK;             // (d × r) its indexer
    Matrix Q, K, V;                // (n × d_h) its queries, keys and values
    Matrix index_scores;           // (n × n) (X W_IQ)(X W_IK)ᵀ for j ≤ i, else 0
    Matrix weights_full;           // (n × n) causal softmax
    Matrix output_full;            // (n × d_h)
    RollingDecoding window_sinks;  // --window, --sinks
    RollingDecoding all_sinks;     // --window with s = n − w: every key kept
    TopK topk;                     // --top-k
    TopK topk_all;                 // k = n
    Matrix output_window_sinks, weights_window_sinks, slots;  // of window_sinks (listed)
    Matrix output_topk, weights_topk, topk_index;             // of topk (listed)

    MatrixList matrices() const;
};

// One head of the model trained with a sink logit, on the same held-out sequence.
struct SinkHead {
    std::size_t head = 0;
    Matrix sink_logit;                // (1 × 1) σ_h, trained
    Matrix Q, K, V;                   // (n × d_h)
    SinkAttention sink;               // attention_with_sink(Q, K, V, σ_h)
    Matrix sink_weights, sink_share;  // of sink (listed)
};

// What the lesson shows, in three parts computed apart, so that a step waits only for the
// trainings it reads (and each model is trained once: train_copy_task may read it back).
//
// 1. The MHA model (the table's first row: softmax heads, every key) and what reads it.
struct ReadModel {
    CopyTaskSettings settings;          // the training's (its variant: none)
    Variant chosen;                     // --window, --sinks, --top-k, --rank
    AttentionOnlyModel<float> trained;  // the MHA row's model
    Halves after;                       // its own on the held-out sequences
    std::vector<Tokens> held_out;       // held_out_count sequences, second half = first
    Halves windowed, indexed;           // the model read with the chosen window + sinks, top-k
    ModelForward<float> plain_forward;  // the model on the held-out sequences
    Matrix shares;                      // (heads × 3) first_half_shares
    OneHead one;                        // the copying head on held_out[0]
    Matrix tokens;                      // (1 × n) held_out[0]
    Matrix window_table;  // (windows × 5) w; second-half accuracy and loss with no sinks; the same with s sinks
    Matrix topk_table;    // (ks × 6) k; second-half accuracy and loss; the shown head's largest |output − full|;
                          //   second-half accuracy and loss with an indexer of rank d_h (the heads' own ranking)
    Matrix flops_table;   // (lengths × 4) n; FLOPs per token and head: indexer, top-k attention, full attention

    MatrixList matrices() const;
};
// 2. The same model trained with a sink logit per head.
struct SinkModel {
    AttentionOnlyModel<float> trained;  // the sink-logit row's: the same data and steps
    Halves after;                       // on the held-out sequences
    ModelForward<float> forward;        // on the held-out sequences
    Matrix shares;                      // (heads × 3) first_half_shares
    Matrix logits;                      // (heads × 1) σ_h
    SinkHead head;                      // its copying head on held_out[0]

    MatrixList matrices() const;
};
// 3. Every variant side by side.
struct VariantsSideBySide {
    std::vector<VariantRun> runs;   // every variant of the table, each trained once (attention_variants)
    std::vector<VariantRow> table;  // their costs at DeepSeek-V3's shape, and their accuracy
    Matrix variants;  // (rows × 7) per layer: elements kept at n = 4096, 131072; bytes (all layers) at both;
                      //   FLOPs per decoded token at both; second-half accuracy on the copy task

    MatrixList matrices() const;
};
// `progress(row)` (when set) hears the training of each trained row of the table.
using RowProgress = std::function<Progress(std::size_t)>;
ReadModel read_model(const CopyTaskSettings& s, const Variant& chosen, const RowProgress& progress);
SinkModel sink_model(const CopyTaskSettings& s, const Variant& chosen, const RowProgress& progress);
VariantsSideBySide variants_side_by_side(const CopyTaskSettings& s, const Variant& chosen,
                                         const RowProgress& progress);
