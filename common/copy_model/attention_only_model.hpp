// An attention-only transformer: embeddings, causal token-mixing layers with
// residual connections, an unembedding and next-token cross-entropy; its
// forward and backward passes, by hand, in float (training) or double (the
// gradient check). The model's passes are in attention_only_model.cpp, each way of mixing the
// tokens in common/token_mixers/, the products in fixed_order_product.hpp.
//
//   X₀ = E[tokens] + P                                     (n × d)   embed + positions
//   X_{l+1} = X_l + Σ_h Z_h · W_O^h                        (n × d)   layer l, heads h
//   q, k, v = X_l W_Q^h, X_l W_K^h, X_l W_V^h              (n × d_h) rows q_t, k_t, v_t
//   logits = X_L · U,  p = softmax_rows(logits)            (n × V)
//   loss = −(1/N) Σ_{sequences} Σ_{i<n−1} log p_i[token_{i+1}]   N = B·(n−1) predictions
//
// A head mixes its tokens in one of four ways (the model's `mixer`): softmax, linear, the delta
// rule and the gated delta rule, forward and backward in common/token_mixers/mixer.hpp.
//
// Backward (the chain rule from the loss down; "d" names ∂loss/∂ of that matrix):
//   d_logits = (p − onehot(next token)) / N   (0 in the last row)   (n × V)
//   dU = X_Lᵀ · d_logits,  dX_L = d_logits · Uᵀ
//   per layer, from the last: dX_l = dX_{l+1} (the residual) + Σ_h, with G = dX_{l+1}:
//     dW_O = Zᵀ G,  dZ = G W_Oᵀ
//     the mixer's backward: dZ → dq, dk, dv (and dβ, dα): common/token_mixers/mixer.hpp
//     dW_Q = X_lᵀ dq, dW_K = X_lᵀ dk, dW_V = X_lᵀ dv
//     dX_l += dq W_Qᵀ + dk W_Kᵀ + dv W_Vᵀ
//     delta: ds_β = dβ ⊙ β ⊙ (1 − β) (n × 1),  dw_β = X_lᵀ ds_β,  dX_l += ds_β w_βᵀ
//     gated: the same for α, and db_α = Σ_t ds_α
//   dE[token] += dX₀ row,  dP[i] += dX₀ row i (when positions are learned)
//
// The variants of 2025's models (the model's `variant`; its defaults are the model above):
//   which keys a softmax head reads, query i of a sequence (hidden keys get weight 0):
//     window w   keys j with i − w < j ≤ i (Mistral's sliding window; w counts i's own key;
//                w = 0: every earlier key)
//     sinks s    keys j < s are read too (StreamingLLM's attention sinks; with a window)
//     top_k k    only the k visible keys that the indexer ranks highest, by q_i^I · k_j^I with
//                q^I = X_l W_IQ^h, k^I = X_l W_IK^h (d × r each); equal scores: the lower position
//                first. k ≥ the visible keys: every visible key (exactly full attention).
//     The backward pass is the one above: a hidden key has A = 0, so dS = 0 there, and the kept
//     keys' gradient is that of a mask. The selection itself has no gradient (it is a choice,
//     not a function with a slope), so W_IQ and W_IK are not trained: build them from the
//     trained heads (score_indexer.hpp), or leave them random.
//   sink_logit  a learned logit s_h per head (gpt-oss): the weights are softmax over the row
//     [S_i, s_h] with the sink's column dropped,
//       A[i, j] = e^{S_ij} / (Σ_{j'} e^{S_ij'} + e^{s_h}),   a_sink,i = e^{s_h} / (same) = 1 − Σ_j A[i, j]
//     so a row sums to less than 1 and a head may attend to nothing. Backward: the sink's column
//     gets no gradient from above (it is dropped), so dS is as above, and
//       ds_h = −Σ_i a_sink,i · rowsum(dA ⊙ A)_i    (over every query of every sequence)
//     s_h = −∞ is plain softmax. It starts at 0: the score of a key orthogonal to the query, in
//     the middle of the random start's scores (spread about ±2 at chapter 16's sizes), so that
//     at first the sink takes the share of one more, typical key, and training moves it either
//     way (a large negative start would hide it, with a gradient near 0: it could not grow).
//   kv_heads g  (0 or h: a key and value per head, MHA; 1: MQA; a divisor of h: GQA) the h/g
//     heads of a group share W_K and W_V (the group's first head's): dW_K, dW_V sum over the group.
//   latent d_c  (MLA without its decoupled RoPE key: this model's positions are learned and
//     added to the tokens, not turned into the keys, so nothing stands between a query and a
//     latent) c = X_l W_DKV (d × d_c, one per layer), K_h = c W_UK^h, V_h = c W_UV^h (d_c × d_h):
//       dW_UK^h = cᵀ dK_h, dW_UV^h = cᵀ dV_h, dc = Σ_h dK_h W_UK^hᵀ + dV_h W_UV^hᵀ,
//       dW_DKV = X_lᵀ dc, dX_l += dc W_DKVᵀ
//   window, sinks, top_k and sink_logit are the softmax mixer's; kv_heads and latent serve every mixer.
//
// Shapes: V vocabulary, n tokens per sequence, d = d_model, h heads of width
// d_h = d / h per layer, B sequences in a batch stacked as (B·n × d).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "common/learning/cross_entropy.hpp"  // token_loss
#include "common/numbers/matrix.hpp"  // Mat<T>, Tokens
#include "common/token_mixers/mixer.hpp"

// The variants above; every default gives the model above, number for number.
struct Variant {
    std::size_t window = 0;        // w: query i reads keys i − w < j ≤ i (0: every earlier key)
    std::size_t sinks = 0;         // s: and keys j < s
    std::size_t top_k = 0;         // k: only the k visible keys the indexer ranks highest (0: all)
    std::size_t indexer_rank = 0;  // r: the indexer's width, when top_k > 0 (0: d_h)
    bool sink_logit = false;       // a learned sink logit per head
    std::size_t kv_heads = 0;      // g: key–value heads per layer (0 or h: one per head)
    std::size_t latent = 0;        // d_c: keys and values from a latent (0: from X directly)
};

template <class T>
struct AttentionOnlyModel {
    std::size_t layers = 0, heads = 0;
    bool learned_positions = true;     // false: P stays 0 (no positional information)
    Mat<T> E;                          // (V × d)   token embeddings
    Mat<T> P;                          // (n × d)   learned positions
    std::vector<Mat<T>> W_Q, W_K, W_V; // [l·heads + h] (d × d_h)
    std::vector<Mat<T>> W_O;           // [l·heads + h] (d_h × d)
    Mat<T> U;                          // (d × V)   unembedding
    Mixer mixer = Mixer::softmax;
    std::vector<Mat<T>> W_beta;        // [l·heads + h] (d × 1)  delta and gated_delta: β_t = σ(x_t · w_β)
    std::vector<Mat<T>> W_alpha;       // [l·heads + h] (d × 1)  gated_delta: α_t = σ(x_t · w_α + b_α)
    std::vector<Mat<T>> b_alpha;       // [l·heads + h] (1 × 1)  starts at ln 19 (α ≈ 0.95: keep most of the state)
    // (empty where the mixer has no such weights)
    Variant variant;
    // W_K, W_V above are [l·g + group] with g = variant.kv_heads key–value heads; empty with a latent.
    std::vector<Mat<T>> sink;          // [l·heads + h] (1 × 1)  s_h, sink_logit only; starts at 0
    std::vector<Mat<T>> W_IQ, W_IK;    // [l·heads + h] (d × r)  the indexer, top_k only (not trained)
    std::vector<Mat<T>> W_DKV;         // [l] (d × d_c)          latent only
    std::vector<Mat<T>> W_UK, W_UV;    // [l·heads + h] (d_c × d_h) latent only
};

// Where head k = l·heads + h finds its W_K and W_V: l·g + h / (heads / g) (g = kv_heads, or heads).
template <class T>
std::size_t kv_index(const AttentionOnlyModel<T>& m, std::size_t k) {
    const std::size_t g = m.variant.kv_heads == 0 ? m.heads : m.variant.kv_heads;
    return (k / m.heads) * g + (k % m.heads) / (m.heads / g);
}

// Every intermediate of a forward pass over a batch, for the backward pass.
template <class T>
struct ModelForward {
    std::size_t batch = 0, length = 0;
    std::vector<Mat<T>> X;         // [l] (B·n × d) residual stream before layer l; X[layers] the last
    std::vector<Mat<T>> Q, K, V;   // [l·heads + h] (B·n × d_h)
    std::vector<Mat<T>> weights;   // [l·heads + h] (B·n × n): row b·n + i = query i of sequence b
                                   //   softmax and linear: A (rows sum to 1; with a sink logit, to
                                   //   1 − a_sink,i); delta and gated: the
                                   //   matrix M with z_i = Σ_{j≤i} M[i, j] v_j (the state unrolled:
                                   //   M[i, j] = q̂_iᵀ α_i(I − β_i k̂_i k̂_iᵀ) ⋯ α_{j+1}(I − β_{j+1} k̂_{j+1} k̂_{j+1}ᵀ) β_j k̂_j,
                                   //   rows need not sum to 1; empty with Fill::for_gradient);
                                   //   0 after the diagonal
    std::vector<Mat<T>> Z;         // [l·heads + h] (B·n × d_h) the head's output, per sequence
    std::vector<Mat<T>> phi_Q, phi_K;  // linear only: [l·heads + h] (B·n × d_h) φ(Q), φ(K)
    // delta and gated_delta only (empty for the other mixers):
    std::vector<Mat<T>> states;    // [l·heads + h] (B·n × d_h·d_h): row b·n + t = S_t (keys × values, by rows)
    std::vector<Mat<T>> beta;      // [l·heads + h] (B·n × 1) β_t
    std::vector<Mat<T>> alpha;     // [l·heads + h] (B·n × 1) α_t (gated_delta only)
    // the variants (empty without them):
    std::vector<Mat<T>> sink_share;    // [l·heads + h] (B·n × 1) a_sink,i = 1 − Σ_j A[i, j] (sink_logit)
    std::vector<Mat<T>> index_scores;  // [l·heads + h] (B·n × n) q_i^I · k_j^I for j ≤ i, else 0 (top_k)
    std::vector<Mat<T>> latent;        // [l] (B·n × d_c) c = X_l W_DKV (latent)
    Mat<T> logits, probs;          // (B·n × V)
};

// A model of random numbers (normal: std 1 for E and P, 1/√d for W_Q, W_K, W_V,
// U, w_β and w_α, 1/√d_h for W_O; b_α = ln 19), the same for a seed on every machine.
// w_β and w_α are drawn after everything else: the other numbers are those of a
// softmax model with the same seed, whatever the mixer. The variant's numbers come after
// them: s_h = 0; W_IQ, W_IK (std 1/√d); W_DKV (1/√d), W_UK, W_UV (1/√d_c). With g key–value
// heads, a group keeps its first head's W_K and W_V of the MHA draw; a latent drops them.
// An InputError when the variant does not fit (the softmax mixer's variants on another mixer,
// g not dividing h, g and a latent together).
AttentionOnlyModel<float> random_model(std::size_t vocabulary, std::size_t length, std::size_t d_model,
                                       std::size_t layers, std::size_t heads, bool learned_positions,
                                       std::uint64_t seed, Mixer mixer = Mixer::softmax,
                                       const Variant& variant = {});

// The same numbers in double (for the gradient check).
AttentionOnlyModel<double> in_double(const AttentionOnlyModel<float>& m);

// Every parameter matrix, in a fixed order: E, P (when learned), U, then per
// layer and head W_Q, W_K, W_V (a group's first head), W_O; then per layer and head W_beta,
// W_alpha, b_alpha (those the mixer has); then the sinks s_h, then W_DKV per layer and W_UK,
// W_UV per head. The indexer is no parameter (it is not trained).
template <class T>
std::vector<Mat<T>*> parameters(AttentionOnlyModel<T>& m);

// What a forward pass fills: everything, or what the loss and its gradient read (the delta
// mixers' weights M then stay empty: unrolling the state costs more than running it).
enum class Fill { everything, for_gradient };

// The forward pass; `ablated[l·heads + h]` true sets that head's output to 0.
template <class T>
ModelForward<T> model_forward(const AttentionOnlyModel<T>& m, const std::vector<Tokens>& batch,
                              const std::vector<bool>& ablated = {}, Fill fill = Fill::everything);

// The mean next-token cross-entropy (summed in double); fills d_logits
// (B·n × V) when given.
template <class T>
double next_token_loss(const ModelForward<T>& f, const std::vector<Tokens>& batch, Mat<T>* d_logits = nullptr);

// Its gradient alone, d_logits (B·n × V) = (p − onehot(next token)) / N, 0 in each sequence's
// last row: what a training step needs (the loss in double would cost a logarithm and V
// exponentials per token).
template <class T>
Mat<T> next_token_gradient(const ModelForward<T>& f, const std::vector<Tokens>& batch);

// The gradient of the loss with respect to every parameter, in the model's shape.
template <class T>
AttentionOnlyModel<T> model_backward(const AttentionOnlyModel<T>& m, const std::vector<Tokens>& batch,
                                     const ModelForward<T>& f, const Mat<T>& d_logits,
                                     const std::vector<bool>& ablated = {});
