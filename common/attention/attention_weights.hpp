// The four projections of one attention layer, drawn at random: h query heads over
// kv_heads key–value heads, each head d_k = d_model / h wide.
//
//   W_Q       (d_model × h·d_k)         query head i owns columns [i·d_k, (i+1)·d_k)
//   W_K, W_V  (d_model × kv_heads·d_k)  key–value head j owns columns [j·d_k, (j+1)·d_k)
//   W_O       (h·d_v × d_model)         query head i's output meets rows [i·d_v, (i+1)·d_v)
//
// kv_heads = h is multi-head attention (chapter 07); fewer is grouped-query attention,
// 1 multi-query (chapter 15).
#pragma once

#include <cstddef>

#include "common/numbers/matrix.hpp"
#include "common/numbers/random.hpp"

struct AttentionWeights {
    Matrix W_Q, W_K, W_V, W_O;
};

// W_Q, W_K, W_V with standard deviation √(2/d_model), wide enough that the heads' softmaxes
// peak and the heads differ; W_O with 1/√d_model. Drawn in that order from `random`.
AttentionWeights random_attention_weights(std::size_t d_model, std::size_t h, std::size_t kv_heads, Random& random);
