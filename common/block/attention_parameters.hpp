// How many parameters one multi-head attention layer holds.
//
//   4 · d_model²            W_Q, W_K, W_V, W_O, each (d_model × d_model) whatever h is
//   + 4 · d_model           a bias for each of them, when the model has biases
//
// The Transformer paper writes its attention without biases (Vaswani et al. 2017,
// section 3.2.2: head_i = Attention(Q W_i^Q, K W_i^K, V W_i^V), MultiHead = Concat(…) W^O),
// so Transformer Base (d_model 512) has 4 · 512² = 1 048 576 attention parameters per
// layer by that formula. GPT-2 adds biases (c_attn and c_proj in its checkpoint):
// 4 · 768² + 4 · 768 = 2 362 368. Both are computed here; the paper itself publishes
// only whole-model sizes (65 M for Transformer Base, Table 3), GPT-2's "124M".
#pragma once

#include <cstdint>

enum class AttentionBiases { none, with_biases };

inline std::uint64_t attention_parameters(std::uint64_t d_model, AttentionBiases biases) {
    return 4 * d_model * d_model + (biases == AttentionBiases::with_biases ? 4 * d_model : 0);
}
