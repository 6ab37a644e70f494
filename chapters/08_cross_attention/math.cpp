#include "chapters/08_cross_attention/math.hpp"

#include <xtensor/xbuilder.hpp>

#include "common/numbers/matmul.hpp"

Crossing first_crossing(const std::vector<std::size_t>& looks_at) {
    for (std::size_t b = 0; b < looks_at.size(); ++b)
        for (std::size_t a = 0; a < b; ++a)
            if (looks_at[a] > looks_at[b]) return {true, a, b};
    return {};
}

CrossAttention cross_attention(const Translation& t) {
    const Matrix &X_dec = t.X_dec, &X_enc = t.X_enc, &W_Q = t.W_Q, &W_K = t.W_K, &W_V = t.W_V;
    CrossAttention r;
    // pass 1: the decoder asks, the encoder is found and answers
    // ┌ exercise cross-projections
    r.Q = matmul(X_dec, W_Q);  // (m × d_dec) · (d_dec × d_k) → (m × d_k)
    r.K = matmul(X_enc, W_K);  // (n × d_enc) · (d_enc × d_k) → (n × d_k)
    r.V = matmul(X_enc, W_V);  // (n × d_enc) · (d_enc × d_v) → (n × d_v)
    // └ stub: r.Q = xt::zeros<float>({rows(X_dec), cols(W_Q)}), r.K = xt::zeros<float>({rows(X_enc), cols(W_K)}), r.V = xt::zeros<float>({rows(X_enc), cols(W_V)});
    // pass 2: a rectangle of scores (m × n), its softmax and the output (m × d_v)
    r.steps = scaled_dot_product_attention(r.Q, r.K, r.V);
    // pass 3: the alignment, each decoder token's largest weight
    for (std::size_t i = 0; i < rows(X_dec); ++i) r.looks_at.push_back(argmax_of_row(r.steps.weights, i));
    r.crossing = first_crossing(r.looks_at);
    // pass 4: the encoder's tokens reversed, each key with its own value
    r.order = reversal(rows(X_enc));
    const Matrix X_enc_reversed = permute_rows(X_enc, r.order);  // (n × d_enc)
    r.reversed = scaled_dot_product_attention(r.Q, matmul(X_enc_reversed, W_K), matmul(X_enc_reversed, W_V));
    return r;
}
