// A small GPT, the architecture of nanoGPT's model.py (GPT-2's): its parameters under nanoGPT's
// names and shapes, its random start, its forward pass, its loss and its backward pass by hand,
// in float (training) or double (the gradient check). The layers it is made of (linear, layer
// norm, exact GELU) are in gpt_layers.hpp, the block's attention in gpt_attention.hpp (chapter
// 22's below, or a variant: GQA, RoPE, a window, sinks, linear attention, the delta rules), each
// head's mixer in common/token_mixers/, every product in fixed_order_product.hpp; AdamW, its schedule
// and clipping in adamw.hpp.
//
//   x₀ = wte[tokens] + wpe[0 … T−1]                              (B·T × d)
//   per block i = 0 … L−1:
//     a = ln_1(x)                                                (B·T × d)
//     [q k v] = a · c_attnᵀ + b                                  (B·T × 3d) q: columns 0 … d−1,
//                                                                k: d … 2d−1, v: 2d … 3d−1
//     z_h = softmax_causal(q_h k_hᵀ / √d_h) v_h                  head h: columns h·d_h … of each
//     x += [z_0 … z_{H−1}] · attn.c_projᵀ + b                    (B·T × d)
//     u = ln_2(x)·c_fcᵀ + b,  x += GELU(u) · mlp.c_projᵀ + b     u (B·T × 4d)
//   logits = ln_f(x) · wteᵀ                                      (B·T × V) the output layer is wte
//   loss = −(1/(B·T)) Σ_rows log softmax(logits row)[target]     every position predicts
//
// Backward, from the loss down ("d" names ∂loss/∂ of that matrix):
//   d_logits = (softmax(logits) − onehot(target)) / (B·T)
//   dwte = d_logitsᵀ · ln_f(x),  d ln_f(x) = d_logits · wte
//   each linear y = x Wᵀ + b: dW = dyᵀ x, db = Σ_rows dy, dx = dy W (gpt_layers.hpp)
//   each residual x += f(x): dx passes through unchanged, and f's backward adds to it
//   attention: attend_backward (token_mixers.hpp) per head and sequence, dz_h → dq_h, dk_h, dv_h
//   x₀: each row's gradient adds to its token's row of dwte and its position's row of dwpe
//
// Shapes: V vocabulary, T context (positions), B sequences of T tokens stacked as (B·T × d),
// L blocks, H heads of width d_h = d / H. Weights as nn.Linear stores them, (out × in).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/numbers/matrix.hpp"  // Mat<T>, Tokens
#include "common/token_mixers/mixer.hpp"

// How every block's attention mixes its tokens (gpt_attention.hpp gives the formulas); the
// defaults are the model above, chapter 22's multi-head attention (MHA).
struct GptAttention {
    Mixer mixer = Mixer::softmax;  // softmax, linear, delta or gated_delta (mixer.hpp)
    std::size_t kv_heads = 0;      // g key–value heads (0: one per head, MHA; 1: MQA; else GQA)
    std::size_t window = 0;        // w: query i reads keys i − w < j ≤ i (0: every earlier key)
    std::size_t sinks = 0;         // s: and keys j < s (with a window)
    bool sink_logit = false;       // a learned logit per head that takes a share of each row
    bool rotary = false;           // RoPE turns q and k; no wpe
    std::size_t latent = 0;        // MLA: keys and values from a latent c_KV this wide (0: none),
                                   //   beside a RoPE key of d_h/2 shared by the heads; no wpe
    std::size_t top_k = 0;         // k: query i reads the k earlier keys its head scores highest
                                   //   (0: every key it sees)
};

struct GptConfig {
    std::size_t vocab = 0, context = 0, layers = 0, heads = 0, d_model = 0;
    GptAttention attention = {};
};

// One block's parameters; a vector (LayerNorm's weight, a bias) is a (1 × n) matrix here.
template <class T>
struct GptBlock {
    Mat<T> ln_1_weight, ln_1_bias;            // (1 × d)
    Mat<T> c_attn_weight, c_attn_bias;        // (d + 2·g·d_h × d), (1 × …): (3d × d) with g = H
    Mat<T> attn_proj_weight, attn_proj_bias;  // attn.c_proj: (d × d), (1 × d)
    Mat<T> sinks;                             // attn.sinks (1 × H), the sink logit only
    Mat<T> b_proj_weight;                     // attn.b_proj (H × d), β's: delta and gated_delta
    Mat<T> a_proj_weight, a_proj_bias;        // attn.a_proj (H × d), (1 × H), α's: gated_delta
    Mat<T> kv_up_weight, kv_up_bias;          // attn.kv_up (2d × d_c), (1 × 2d): MLA's keys, values
    Mat<T> ln_2_weight, ln_2_bias;            // (1 × d)
    Mat<T> c_fc_weight, c_fc_bias;            // (4d × d), (1 × 4d)
    Mat<T> mlp_proj_weight, mlp_proj_bias;    // mlp.c_proj: (d × 4d), (1 × d)
};

template <class T>
struct Gpt {
    GptConfig config;
    Mat<T> wte;                     // (V × d) token embeddings, also the output layer (lm_head)
    Mat<T> wpe;                     // (T × d) position embeddings (none with RoPE)
    std::vector<GptBlock<T>> h;     // [L]
    Mat<T> ln_f_weight, ln_f_bias;  // (1 × d)
};

// A parameter under its nanoGPT name; `vector` when nanoGPT's tensor is 1-D (its .npy file is
// then of shape (n), and AdamW does not decay it).
template <class T>
struct NamedParameter {
    std::string name;
    Mat<T>* tensor;
    bool vector;
};

// Every parameter in the order of nanoGPT's named_parameters(): transformer.wte.weight,
// transformer.wpe.weight, transformer.h.0.ln_1.weight, ….ln_1.bias, .attn.c_attn.weight,
// .attn.c_attn.bias, .attn.c_proj.weight, .attn.c_proj.bias, .ln_2.weight, .ln_2.bias,
// .mlp.c_fc.weight, .mlp.c_fc.bias, .mlp.c_proj.weight, .mlp.c_proj.bias, … h.(L−1) …,
// transformer.ln_f.weight, transformer.ln_f.bias (lm_head is wte: no entry of its own).
template <class T>
std::vector<NamedParameter<T>> named_parameters(Gpt<T>& model);

// A fresh model as nanoGPT starts one: every matrix N(0, 0.02), the two c_proj weights of each
// block N(0, 0.02/√(2L)), biases 0, LayerNorm weights 1; drawn in the order of named_parameters
// from Random(seed): the same numbers on every machine. An InputError when a size is 0 or d
// does not split into the heads.
Gpt<float> fresh_gpt(const GptConfig& config, std::uint64_t seed);

// A model of the configuration's shapes, every number 0 (a checkpoint's are read into it).
Gpt<float> zero_gpt(const GptConfig& config);

// The same numbers in double (for the gradient check).
Gpt<double> gpt_in_double(const Gpt<float>& model);

// The number of parameters (wte counted once).
std::size_t parameter_count(const GptConfig& config);

// What the backward pass reads, kept by the forward pass (rows: B·T tokens).
template <class T>
struct GptBlockForward {
    Mat<T> x;                   // (B·T × d) the residual stream entering the block
    Mat<T> ln_1, ln_1_stats;    // (B·T × d) ln_1(x); (B·T × 2) each row's μ and 1/√(σ² + ε)
    Mat<T> qkv;                 // (B·T × d + 2·g·d_h) [q k v] = ln_1 · c_attnᵀ + b (MLA: qkv_width)
    std::vector<Mat<T>> q, k, v;  // [H] (B·T × d_h) each head's queries, keys, values (turned, with RoPE;
                                  //   MLA: q, k (B·T × d_h + d_h/2) [content | turned RoPE part])
    std::vector<Mat<T>> weights;  // [H] (B·T × T) row b·T + i: query i of sequence b; 0 after i
                                  //   (empty for the delta rules: their state is not unrolled)
    std::vector<Mat<T>> z;        // [H] (B·T × d_h) each head's output
    // the variants' own (empty without them), per head:
    std::vector<Mat<T>> phi_q, phi_k;   // [H] (B·T × d_h) φ(q), φ(k): linear
    std::vector<Mat<T>> beta, alpha;    // [H] (B·T × 1) the gates β_t (delta rules), α_t (gated)
    std::vector<Mat<T>> states;         // [H] (B·T × d_h·d_h) S_t after each token (delta rules)
    std::vector<Mat<T>> sink, sink_share;  // [H] (1 × 1) s_h; (B·T × 1) its share of each row
    Mat<T> latent, latent_kv;           // (B·T × d_c) c_KV; (B·T × 2d) [k v] = c_KV · kv_upᵀ + b (MLA)
    Mat<T> heads;               // (B·T × d) [z_0 … z_{H−1}], the input of attn.c_proj
    Mat<T> x_mid;               // (B·T × d) x after the attention's residual
    Mat<T> ln_2, ln_2_stats;    // as ln_1, of x_mid
    Mat<T> fc, gelu, fc_cdf;    // (B·T × 4d) u = ln_2 · c_fcᵀ + b, GELU(u), and Φ(u) for GELU′(u)
};

template <class T>
struct GptForward {
    std::size_t batch = 0, length = 0;
    std::vector<GptBlockForward<T>> blocks;  // [L]
    Mat<T> x_final;             // (B·T × d) the residual stream after the last block
    Mat<T> ln_f, ln_f_stats;    // (B·T × d), (B·T × 2)
    Mat<T> logits;              // (B·T × V)
    Mat<T> branch;              // (B·T × d) what a residual branch adds (a working buffer)
    Mat<T> rope_cos, rope_sin;  // (t × r/2) cos and sin of position · θ_p (r = rope_width: RoPE, MLA)
};

// The backward pass's working matrices, kept from step to step.
template <class T>
struct GptBackwardBuffers {
    Mat<T> dx;                  // (B·T × d) ∂loss/∂ the residual stream
    Mat<T> d_ln, d_heads;       // (B·T × d) of a LayerNorm's output; of [z_0 … z_{H−1}]
    Mat<T> d_fc;                // (B·T × 4d) of GELU(u), then of u
    Mat<T> d_qkv;               // (B·T × d + 2·g·d_h)
    std::vector<Mat<T>> dz, dq, dk, dv;  // [H] (B·T × d_h) each head's
    std::vector<Mat<T>> d_beta, d_alpha;  // [H] (B·T × 1) the gates' (delta rules)
    Mat<T> d_gates;                      // (B·T × H) ∂loss/∂ a gate's σ input
    std::vector<T> d_sinks;              // [H·B] each head's and sequence's share of ds_h
    Mat<T> d_latent, d_latent_kv;        // (B·T × d_c), (B·T × 2d): MLA's
};

// One head's output replaced in a forward pass (an intervention, chapter 23): z_h of block l,
// the columns h·d_h … h·d_h + d_h − 1 of [z_0 … z_{H−1}], set to `rows` before attn.c_proj reads
// them. One row is every token's (zero: the head removed; its mean over a text); B·t rows are one
// per token (a patch: the head's output in another run).
template <class T>
struct HeadReplacement {
    std::size_t layer = 0, head = 0;
    Mat<T> rows;  // (1 × d_h) or (B·t × d_h)
};

// The forward pass over B sequences of the same length t ≤ T (positions 0 … t−1), with the heads
// `replaced` (none: the model as it is). An InputError for an empty batch, ragged or too long
// sequences, tokens outside the vocabulary, a replacement of a head the model lacks or of rows
// of another shape.
template <class T>
GptForward<T> gpt_forward(const Gpt<T>& model, const std::vector<Tokens>& batch,
                          const std::vector<HeadReplacement<T>>& replaced = {});
// The same into `forward`, reusing its matrices where their shapes fit: a training loop's steps
// then ask for no new memory (fresh pages cost a fault each: 8 % of a step).
template <class T>
void gpt_forward_into(const Gpt<T>& model, const std::vector<Tokens>& batch, GptForward<T>& forward,
                      const std::vector<HeadReplacement<T>>& replaced = {});

// The mean cross-entropy of every position's logits against its target (summed in double),
// targets as the batch (B × t); fills d_logits (B·t × V) when given. An InputError when the
// targets do not fit the logits.
template <class T>
double gpt_loss(const GptForward<T>& forward, const std::vector<Tokens>& targets, Mat<T>* d_logits = nullptr);

// The gradient of the loss with respect to every parameter, in the model's shape.
template <class T>
Gpt<T> gpt_backward(const Gpt<T>& model, const std::vector<Tokens>& batch, const GptForward<T>& forward,
                    const Mat<T>& d_logits);
// The same into `gradient`, reusing its matrices and the buffers' where their shapes fit.
template <class T>
void gpt_backward_into(const Gpt<T>& model, const std::vector<Tokens>& batch, const GptForward<T>& forward,
                       const Mat<T>& d_logits, Gpt<T>& gradient, GptBackwardBuffers<T>& buffers);
