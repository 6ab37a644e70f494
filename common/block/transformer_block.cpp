#include "common/block/transformer_block.hpp"

#include <cmath>

#include <xtensor/xview.hpp>

#include "common/attention/attention.hpp"
#include "common/numbers/linear.hpp"

BlockSteps attention_sublayer(const Matrix& x, const AttentionParams& p, std::size_t heads) {
    require_divisible(cols(p.W_Q), heads);
    BlockSteps s;
    s.Q = linear(x, p.W_Q, p.b_Q);  // (n × d_model)
    s.K = linear(x, p.W_K, p.b_K);  // (n × d_model)
    s.V = linear(x, p.W_V, p.b_V);  // (n × d_model)
    const Heads Q = split_heads(s.Q, heads), K = split_heads(s.K, heads), V = split_heads(s.V, heads);
    const std::size_t n = rows(x);
    s.weights = Heads::from_shape({heads, n, n});
    Heads outputs = Heads::from_shape(V.shape());  // (h × n × d_v)
    for (std::size_t i = 0; i < heads; ++i) {      // the same attention on each head's columns
        const AttentionSteps a = scaled_dot_product_attention(head(Q, i), head(K, i), head(V, i));
        xt::view(s.weights, i, xt::all(), xt::all()) = a.weights;
        xt::view(outputs, i, xt::all(), xt::all()) = a.output;
    }
    s.concat = merge_heads(outputs);                // (n × d_model)
    s.attention = linear(s.concat, p.W_O, p.b_O);  // (n × d_model)
    return s;
}

BlockSteps transformer_block(const Matrix& X, const BlockParams& p, NormPlacement placement) {
    BlockSteps s;
    if (placement == NormPlacement::pre) {
        const Matrix ln1 = layer_norm(X, p.ln1);        // the sub-layer reads a normalised copy…
        s = attention_sublayer(ln1, p.attention, p.heads);
        s.ln1 = ln1;
        s.residual1 = X + s.attention;                  // …and the residual stream carries X through
        s.ln2 = layer_norm(s.residual1, p.ln2);
        s.ffn = feed_forward(p.ffn, s.ln2);
        s.residual2 = s.residual1 + s.ffn.output;
        s.output = s.residual2;
    } else {
        s = attention_sublayer(X, p.attention, p.heads);
        s.residual1 = X + s.attention;
        s.ln1 = layer_norm(s.residual1, p.ln1);         // the stream itself is normalised
        s.ffn = feed_forward(p.ffn, s.ln1);
        s.residual2 = s.ln1 + s.ffn.output;
        s.ln2 = layer_norm(s.residual2, p.ln2);
        s.output = s.ln2;
    }
    return s;
}

namespace {
Vector normal_vector(Random& random, std::size_t size, float mean, float stddev) {
    Vector v = Vector::from_shape({size});
    for (auto& x : v) x = mean + stddev * random.normal();
    return v;
}

Matrix weight_matrix(Random& random, std::size_t fan_in, std::size_t fan_out, Init init) {
    const float stddev = init == Init::gpt2 ? 0.02f : std::sqrt(2.0f / static_cast<float>(fan_in + fan_out));
    return random.normal_matrix(fan_in, fan_out, stddev);
}
}  // namespace

BlockParams random_block_params(Random& random, std::size_t d_model, std::size_t heads, std::size_t d_ff, Init init,
                                Activation activation) {
    const float spread = 0.1f;
    BlockParams p;
    p.heads = heads;
    p.ln1 = {normal_vector(random, d_model, 1.0f, spread), normal_vector(random, d_model, 0.0f, spread)};
    AttentionParams& a = p.attention;
    a.W_Q = weight_matrix(random, d_model, d_model, init);
    a.W_K = weight_matrix(random, d_model, d_model, init);
    a.W_V = weight_matrix(random, d_model, d_model, init);
    a.W_O = weight_matrix(random, d_model, d_model, init);
    a.b_Q = normal_vector(random, d_model, 0.0f, spread);
    a.b_K = normal_vector(random, d_model, 0.0f, spread);
    a.b_V = normal_vector(random, d_model, 0.0f, spread);
    a.b_O = normal_vector(random, d_model, 0.0f, spread);
    p.ln2 = {normal_vector(random, d_model, 1.0f, spread), normal_vector(random, d_model, 0.0f, spread)};
    p.ffn.W_1 = weight_matrix(random, d_model, d_ff, init);
    p.ffn.b_1 = normal_vector(random, d_ff, 0.0f, spread);
    p.ffn.W_2 = weight_matrix(random, d_ff, d_model, init);
    p.ffn.b_2 = normal_vector(random, d_model, 0.0f, spread);
    p.ffn.activation = activation;
    return p;
}

BlockParameterCount count_block_parameters(std::uint64_t d_model, std::uint64_t d_ff, AttentionBiases biases) {
    return {attention_parameters(d_model, biases), 2 * d_model * d_ff + d_ff + d_model, 2 * 2 * d_model};
}

std::uint64_t parameter_count(const BlockParams& p) {
    const AttentionParams& a = p.attention;
    std::uint64_t count = 0;
    for (const Matrix* m : {&a.W_Q, &a.W_K, &a.W_V, &a.W_O, &p.ffn.W_1, &p.ffn.W_2}) count += m->size();
    for (const Vector* v : {&a.b_Q, &a.b_K, &a.b_V, &a.b_O, &p.ffn.b_1, &p.ffn.b_2, &p.ln1.gamma, &p.ln1.beta,
                            &p.ln2.gamma, &p.ln2.beta})
        count += v->size();
    return count;
}
