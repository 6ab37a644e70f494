// Multi-head latent attention (MLA, DeepSeek-V2 §2.1) written out from its definition, the
// naive form, in double: the reference for chapter 18's float32 naive and absorbed forms.
//
//   c_KV = X · W_DKV,  K = c_KV · W_UK,  V = c_KV · W_UV           (each product summed in double)
//   c_Q  = X · W_DQ,   Q = c_Q · W_UQ
//   K_rope = RoPE(X · W_KR)                         one key of d_h^R for every head
//   Q_rope = RoPE(c_Q · W_QR), head by head         (rope_by_loops, at positions 0 … n−1)
//   head i: q = [Q_i, Q_rope_i] and k = [K_i, K_rope], d_h + d_h^R wide, so that
//   weights_i = causal softmax(q · kᵀ / √(d_h + d_h^R))   (heads_by_loops, in double)
//   output = [weights_0 · V_0, …] · W_O              (summed in double)
//
// Each matrix is rounded to float once where it is handed on.
#pragma once

#include <cstddef>

#include "common/attention/latent_weights.hpp"
#include "common/numbers/matrix.hpp"
#include "common/reference/attention_by_loops.hpp"

struct LatentByLoops {
    Matrix c_KV;          // (n × d_c)
    Matrix K, V;          // (n × h·d_h)
    Matrix K_rope;        // (n × d_h^R), turned
    Matrix Q, Q_rope;     // (n × h·d_h), (n × h·d_h^R) turned head by head
    HeadsByLoops heads;   // h weights (n × n), causal; output (n × h·d_h)
    Matrix output;        // (n × d_model)
};

// X (n × d_model), the weights of h heads (d_h = cols(W_UK) / h), RoPE's base.
LatentByLoops latent_attention_by_loops(const Matrix& X, const LatentWeights& W, std::size_t h,
                                        double base = 10000.0);
