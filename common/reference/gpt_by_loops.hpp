// A GPT of nanoGPT's architecture (common/gpt/gpt_model.hpp) written out as loops in double,
// one sequence, straight from the formulas: the reference that chapter 23's interventions are
// checked with. A head's output can be replaced, as gpt_forward's HeadReplacement does:
//
//   x₀ = wte[ids] + wpe[0 … n−1] (no wpe with RoPE)                    (n × d)
//   per block l:  a = LN(x; ln_1),  [q k v] = a · c_attnᵀ + b           (n × 3d)
//                 z_h = softmax_causal(q_h k_hᵀ / √d_h) v_h, or its replacement   (n × d_h)
//                 or the config's variant of it (gpt_attention.hpp), each row by its formula:
//                 key–value head h / (H/g), RoPE's turn, the window, sinks and sink logit,
//                 φ(q)·φ(k) normalised, the delta rule's state token by token
//                 x += [z_0 … z_{H−1}] · attn.c_projᵀ + b
//                 x += GELU(LN(x; ln_2) · c_fcᵀ + b) · mlp.c_projᵀ + b,  GELU(z) = ½ z (1 + erf(z/√2))
//   logits = LN(x; ln_f) · wteᵀ                                         (n × V)
//
// Every number is a double from the float parameters; nothing is rounded to float.
#pragma once

#include <vector>

#include "common/gpt/gpt_model.hpp"

struct GptByLoops {
    Mat<double> logits;                 // (n × V)
    std::vector<Mat<double>> residual;  // [L + 1] (n × d): x₀, then x after each block
    std::vector<Mat<double>> heads;     // [l·H + h] (n × d_h) z_h as attn.c_proj read it
    std::vector<Mat<double>> weights;   // [l·H + h] (n × n) softmax_causal(q_h k_hᵀ / √d_h) (0 for the delta rules)
};

// The sequence `ids` (1 ≤ n ≤ T) through the model, with the heads `replaced` (one row: every
// token's; n rows: one per token).
GptByLoops gpt_by_loops(const Gpt<float>& model, const Tokens& ids,
                        const std::vector<HeadReplacement<double>>& replaced = {});

// LN(x; ln_f) · wteᵀ of a residual stream x (n × d): the model's output layer read at any depth.
Mat<double> output_layer_by_loops(const Gpt<float>& model, const Mat<double>& x);
