#include "common/attention/attention_weights.hpp"

#include <cmath>

AttentionWeights random_attention_weights(std::size_t d_model, std::size_t h, std::size_t kv_heads, Random& random) {
    const std::size_t d_k = d_model / h;
    const float scale = std::sqrt(2.0f / static_cast<float>(d_model));
    AttentionWeights W;
    W.W_Q = random.normal_matrix(d_model, h * d_k, scale);         // (d_model × h·d_k)
    W.W_K = random.normal_matrix(d_model, kv_heads * d_k, scale);  // (d_model × kv_heads·d_k)
    W.W_V = random.normal_matrix(d_model, kv_heads * d_k, scale);  // (d_model × kv_heads·d_v)
    W.W_O = random.normal_matrix(h * d_k, d_model, 1.0f / std::sqrt(static_cast<float>(d_model)));
    return W;
}
