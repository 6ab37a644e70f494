// A GPT block's attention, from ln_1(x) to [z_0 … z_{H−1}], and back: chapter 22's multi-head
// attention, or one of the variants of chapters 14, 15, 19 and 20 (the config's GptAttention).
// Every variant runs each (head, sequence) on its own, through the copy model's token mixers
// (token_mixers.hpp: softmax with its key choices and sink logit, linear attention, the delta
// rules, each with its backward pass beside it).
//
//   [q k v] = a · c_attnᵀ + b        a = ln_1(x) (N × d); q (N × d): head h's columns h·d_h …;
//                                    k, v (N × g·d_h): key–value head j's columns j·d_h …
//   head h reads key–value head j = h / (H/g)   (chapter 15's rule: consecutive heads share one)
//     MHA: g = H;  MQA: g = 1;  GQA: 1 < g < H, g divides H
//   RoPE: q_h and k_j of the token at position i (in its sequence) turned pair by pair,
//     (a, b) of columns (2p, 2p+1) → (a cos iθ_p − b sin iθ_p, a sin iθ_p + b cos iθ_p),
//     θ_p = 10000^(−2p/d_h) (chapter 14's layout); the model then has no wpe
//   z_h = the mixer of (q_h, k_j, v_j), per sequence (attention_only_model.hpp's formulas):
//     softmax      softmax_causal(q kᵀ / √d_h) v, over the keys in the window (i − w < j ≤ i)
//                  and the sinks (j < s); with top-k, only the k of them with the largest
//                  q_i · k_j (equal scores: the lower position first; the choice has no
//                  gradient, the keys kept get a mask's); with a sink logit s_h, the row's
//                  softmax has one more column e^{s_h} that is dropped (the row sums to less than 1)
//     linear       φ(q) φ(k)ᵀ normalised by rows, then · v, φ = elu + 1
//     delta        S_t = S_{t−1} + β_t k̂_t (v_t − S_{t−1}ᵀ k̂_t)ᵀ, z_t = S_tᵀ q̂_t
//     gated_delta  the same with α_t S_{t−1} in place of S_{t−1}
//   the gates of head h: β_t = σ(a_t · b_proj_h), α_t = σ(a_t · a_proj_h + a_proj.bias_h)
//   MLA (latent d_c; chapter 18, DeepSeek-V2 without the queries' latent), r = d_h/2:
//     [q q_R c_KV k_R] = a · c_attnᵀ + b     (N × d + H·r + d_c + r)
//     [k v] = c_KV · kv_upᵀ + b               (N × 2d) head h's columns h·d_h … of each half
//     head h: softmax over [q_h | RoPE(q_R,h)] · [k_h | RoPE(k_R)]ᵀ / √(d_h + r), then · v_h;
//     the RoPE key k_R (r wide) is every head's; a decoder keeps c_KV and RoPE(k_R): d_c + r
//     floats a token; positions come from the turns alone (no wpe)
//
// Backward, d[z_0 … z_{H−1}] → d a (written), with the block's gradient of c_attn, sinks,
// b_proj, a_proj: each mixer's backward pass (token_mixers.hpp) gives dq_h, dk_h, dv_h (and
// dβ, dα, ds_h); RoPE turns dq_h, dk_h back (by −iθ_p); the g key–value heads' dk, dv are the
// sums of their heads' in head order; then dc_attn, d a as any linear layer, and each gate adds
// its ds = dβ ⊙ β(1 − β) through b_proj (α likewise through a_proj).
//
// Sums that threads share are cut where no sum is: the heads' and sequences' mixers side by side,
// then each key–value head's sum of its heads in order, then the linear layers (gpt_layers.hpp).
#pragma once

#include <cstddef>
#include <string>

#include "common/gpt/gpt_model.hpp"

// a = ln_1(x) (in f.ln_1) → f.qkv, each head's q, k, v, weights, z, and f.heads (N × d);
// rope_cos, rope_sin (n × r/2) the turn of each position, r = rope_width (unread without one).
template <class T>
void attention_forward(const GptBlock<T>& block, const GptConfig& config, GptBlockForward<T>& f,
                       const Mat<T>& rope_cos, const Mat<T>& rope_sin, std::size_t B, std::size_t n);

// d[z_0 … z_{H−1}] (in w.d_heads) → w.d_ln = ∂loss/∂ ln_1(x) (written), and the block's gradient
// of c_attn, sinks, b_proj and a_proj.
template <class T>
void attention_backward(const GptBlock<T>& block, const GptConfig& config, const GptBlockForward<T>& f,
                        const Mat<T>& rope_cos, const Mat<T>& rope_sin, GptBackwardBuffers<T>& w,
                        GptBlock<T>& gradient, std::size_t B, std::size_t n);

// cos and sin of i·θ_p, θ_p = 10000^(−2p/r), for positions i = 0 … n−1 and pairs p = 0 … r/2 − 1
// (n × r/2), r the columns turned (rope_width); the angle in double, each entry rounded once to T.
template <class T>
void rope_table(std::size_t n, std::size_t r, Mat<T>& cos_table, Mat<T>& sin_table);

// The width of c_attn's output: d queries, then g·d_h keys and g·d_h values (MLA: d + H·r + d_c + r).
std::size_t qkv_width(const GptConfig& config);
// The columns RoPE turns in a head's q and k: d_h with RoPE, d_h/2 with MLA, 0 without either.
std::size_t rope_width(const GptConfig& config);
// Learned positions (wpe) unless RoPE's or MLA's turns give them.
bool has_wpe(const GptConfig& config);
// The key–value heads g (H for MHA).
std::size_t kv_heads(const GptConfig& config);

// The variant in one line ("" for MHA): "mixer softmax kv_heads 2 window 0 sinks 0 sink_logit 0
// rotary 1" (and " latent 64" with MLA, " top_k 16" with top-k), for a kept model's recipe.
std::string attention_text(const GptAttention& attention);
