#include "common/attention/multi_head.hpp"

#include <xtensor/xmanipulation.hpp>
#include <xtensor/xview.hpp>

#include "common/attention/attention.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/matmul.hpp"

void require_divisible(std::size_t d_model, std::size_t h) {
    if (h == 0) throw InputError("multi-head attention needs at least 1 head");
    if (d_model == 0 || d_model % h != 0)
        throw InputError(describe("d_model ", d_model, " is not divisible by ", h, " heads: each head gets d_model / h columns"));
}

Matrix head_columns(const Matrix& m, std::size_t h, std::size_t i) {
    require_divisible(cols(m), h);
    const std::size_t w = cols(m) / h;
    return xt::view(m, xt::all(), xt::range(i * w, (i + 1) * w));  // evaluated: a contiguous copy
}

Matrix head_rows(const Matrix& m, std::size_t h, std::size_t i) {
    require_divisible(rows(m), h);
    const std::size_t w = rows(m) / h;
    return xt::view(m, xt::range(i * w, (i + 1) * w), xt::all());
}

Heads split_heads(const Matrix& m, std::size_t h) {
    require_divisible(cols(m), h);
    const std::size_t n = rows(m), d_k = cols(m) / h;
    Heads by_token = xt::reshape_view(m, {n, h, d_k});  // (n × h × d_k): row-major, so no data moves
    return xt::transpose(by_token, {1, 0, 2});          // (h × n × d_k): each head's block contiguous
}

Matrix merge_heads(const Heads& heads) {
    const std::size_t h = heads.shape(0), n = heads.shape(1), d_k = heads.shape(2);
    Heads by_token = xt::transpose(heads, {1, 0, 2});  // (n × h × d_k)
    return xt::reshape_view(by_token, {n, h * d_k});   // (n × h·d_k)
}

Matrix head(const Heads& heads, std::size_t i) { return xt::view(heads, i, xt::all(), xt::all()); }

MultiHeadSteps multi_head_attention(const Matrix& X, const Matrix& W_Q, const Matrix& W_K, const Matrix& W_V,
                                    const Matrix& W_O, std::size_t h) {
    require_divisible(cols(W_Q), h);
    if (cols(W_Q) != cols(W_K) || cols(W_V) != rows(W_O))
        throw InputError(describe("multi-head attention: W_Q has ", cols(W_Q), " columns, W_K ", cols(W_K), ", W_V ", cols(W_V), ", W_O ", rows(W_O), " rows"));
    const Heads Q = split_heads(matmul(X, W_Q), h);  // (h × n × d_k)
    const Heads K = split_heads(matmul(X, W_K), h);  // (h × n × d_k)
    const Heads V = split_heads(matmul(X, W_V), h);  // (h × n × d_v)
    const std::size_t n = rows(X), d_v = cols(W_V) / h;
    MultiHeadSteps steps;
    steps.weights = Heads::from_shape({h, n, n});
    Heads outputs = Heads::from_shape({h, n, d_v});
    for (std::size_t i = 0; i < h; ++i) {  // the same attention on each head's block
        const AttentionSteps a = scaled_dot_product_attention(head(Q, i), head(K, i), head(V, i));
        xt::view(steps.weights, i, xt::all(), xt::all()) = a.weights;
        xt::view(outputs, i, xt::all(), xt::all()) = a.output;
    }
    steps.concat = merge_heads(outputs);          // (n × h·d_v)
    steps.output = matmul(steps.concat, W_O);     // (n × d_model)
    return steps;
}
