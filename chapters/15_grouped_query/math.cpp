#include "chapters/15_grouped_query/math.hpp"

#include <cmath>
#include <string>

#include "common/attention/attention.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/matmul.hpp"

std::size_t kv_head_of(std::size_t i, std::size_t h, std::size_t g) {
    // ┌ exercise kv-mapping
    return i / (h / g);  // h/g query heads per key–value head, next to each other
    // └ stub: return 0;
}

std::size_t kv_head_tiled(std::size_t i, std::size_t g) { return i % g; }

void check_heads(std::size_t d_model, std::size_t h, std::size_t g, const std::string& width) {
    if (d_model % h != 0)
        throw InputError(describe("--heads ", h, " does not divide ", width, " ", d_model,
                                  ": each query head gets d_model / h columns, so h must divide d_model"));
    if (h % g != 0)
        throw InputError(describe("--kv-heads ", g, " does not divide --heads ", h,
                                  ": each key–value head serves h / g query heads, so g must divide h"));
}

// The attention of one group: each query head i of `members` against the key–value head
// they share, K_j and V_j (n × d_k each). Fills weights[i] (n × n) and head i's columns
// [i·d_v, (i+1)·d_v) of concat.
static void attend_one_group(GroupedAttention& r, const std::vector<std::size_t>& members, const Matrix& K_j,
                             const Matrix& V_j, std::size_t h) {
    // ┌ exercise one-group
    const std::size_t d_v = cols(V_j);
    for (const std::size_t i : members) {
        const Matrix Q_i = head_columns(r.Q, h, i);                            // (n × d_k)
        const AttentionSteps a = scaled_dot_product_attention(Q_i, K_j, V_j);  // softmax(Q_i·K_jᵀ/√d_k)·V_j
        r.weights[i] = a.weights;                                              // (n × n)
        for (std::size_t t = 0; t < rows(a.output); ++t)
            for (std::size_t c = 0; c < d_v; ++c) r.concat(t, i * d_v + c) = a.output(t, c);
    }
    // └ stub: (void)r, (void)members, (void)K_j, (void)V_j, (void)h;
}

GroupedAttention grouped_query_attention(const Matrix& X, const GroupedWeights& W, std::size_t h, std::size_t g,
                                         Mapping mapping) {
    const std::size_t n = rows(X), d_k = cols(W.W_Q) / h;
    GroupedAttention r;
    // pass 1: which key–value head each query head reads
    for (std::size_t i = 0; i < h; ++i)
        r.kv_of.push_back(mapping == Mapping::interleave ? kv_head_of(i, h, g) : kv_head_tiled(i, g));
    // pass 2: project: h heads of queries, only g heads of keys and values
    r.Q = matmul(X, W.W_Q);  // (n × h·d_k)
    r.K = matmul(X, W.W_K);  // (n × g·d_k)
    r.V = matmul(X, W.W_V);  // (n × g·d_v)
    // pass 3: group by group: K_j and V_j are read once for all the query heads that share them
    r.weights.assign(h, Matrix::from_shape({n, n}));
    for (Matrix& w : r.weights) w.fill(0.0f);
    r.concat = Matrix::from_shape({n, h * d_k});  // (n × h·d_v)
    r.concat.fill(0.0f);
    for (std::size_t j = 0; j < g; ++j) {
        std::vector<std::size_t> members;  // the query heads of key–value head j
        for (std::size_t i = 0; i < h; ++i)
            if (r.kv_of[i] == j) members.push_back(i);
        attend_one_group(r, members, head_columns(r.K, g, j), head_columns(r.V, g, j), h);
    }
    // pass 4: mix the heads: (n × h·d_v) · (h·d_v × d_model) → (n × d_model)
    r.output = matmul(r.concat, W.W_O);
    return r;
}

Matrix repeat_kv_columns(const Matrix& W, std::size_t g, std::size_t h) {
    const std::size_t d_k = cols(W) / g, copies = h / g;
    Matrix R = Matrix::from_shape({rows(W), h * d_k});  // (d_model × h·d_k)
    for (std::size_t j = 0; j < g; ++j)                 // key–value head j …
        for (std::size_t copy = 0; copy < copies; ++copy)  // … becomes query heads j·(h/g) + copy
            for (std::size_t d = 0; d < rows(W); ++d)
                for (std::size_t c = 0; c < d_k; ++c) R(d, (j * copies + copy) * d_k + c) = W(d, j * d_k + c);
    return R;
}

// The largest |a − b| over the entries (NaN, when one is).
static float largest_change(const Matrix& a, const Matrix& b) {
    float most = 0.0f;
    for (std::size_t t = 0; t < rows(a); ++t)
        for (std::size_t c = 0; c < cols(a); ++c)
            if (const float d = std::abs(a(t, c) - b(t, c)); !(d <= most)) most = d;
    return most;
}

GroupedHeads grouped_heads(const Matrix& X, const GroupedWeights& W, std::size_t h, std::size_t g) {
    GroupedHeads r;
    r.h = h, r.g = g, r.d_k = cols(X) / h;
    r.grouped = grouped_query_attention(X, W, h, g, Mapping::interleave);
    r.tiled = grouped_query_attention(X, W, h, g, Mapping::tiling);
    // the same layer as multi-head attention whose key–value heads come in identical runs of h/g
    r.W_K_repeated = repeat_kv_columns(W.W_K, g, h);
    r.W_V_repeated = repeat_kv_columns(W.W_V, g, h);
    r.as_multi_head = multi_head_attention(X, W.W_Q, r.W_K_repeated, r.W_V_repeated, W.W_O, h);
    // what reading the same weights with i mod g changes
    for (std::size_t i = 0; i < h; ++i)
        r.weights_moved.push_back(largest_change(r.tiled.weights[i], r.grouped.weights[i]));
    r.output_moved = largest_change(r.tiled.output, r.grouped.output);
    for (std::size_t c = 0; c < h * r.d_k; ++c)
        r.query_columns.push_back("q" + std::to_string(c / r.d_k) + ":" + std::to_string(c % r.d_k));
    for (std::size_t c = 0; c < g * r.d_k; ++c)
        r.kv_columns.push_back("kv" + std::to_string(c / r.d_k) + ":" + std::to_string(c % r.d_k));
    r.cache_bytes = 2 * rows(X) * g * r.d_k * 4;
    r.cache_per_token = kv_cache_bytes_per_token(1, g, r.d_k, 4);
    r.cache_per_token_with_h = kv_cache_bytes_per_token(1, h, r.d_k, 4);
    return r;
}

MatrixList GroupedHeads::matrices() const {
    MatrixList list = {{"Q", grouped.Q, "X · W_Q", "tokens", "query columns"},
                       {"K", grouped.K, "X · W_K", "tokens", "kv columns"},
                       {"V", grouped.V, "X · W_V", "tokens", "kv columns"}};
    for (std::size_t i = 0; i < h; ++i)  // the formula is said where they are shown
        list.push_back(ListedMatrix("head" + std::to_string(i) + "_weights", grouped.weights[i], "", "tokens", "tokens",
                                    MatrixKind::attention_weights)
                           .in_family("head_weights", int(i)));
    list.push_back({"concat", grouped.concat, "[head0_output, …]", "tokens", "query columns"});
    list.push_back({"output", grouped.output, "concat · W_O", "tokens", "dimensions"});
    list.push_back({"W_K_repeated", W_K_repeated, "W_K, each head's block h/g times", "dimensions", "query columns"});
    list.push_back({"W_V_repeated", W_V_repeated, "W_V, each head's block h/g times", "dimensions", "query columns"});
    list.push_back({"output_multi_head", as_multi_head.output,
                    "multi_head_attention(X, W_Q, W_K_repeated, W_V_repeated, W_O)", "tokens", "dimensions"});
    for (std::size_t i = 0; i < h; ++i)
        list.push_back(ListedMatrix("head" + std::to_string(i) + "_weights_tiled", tiled.weights[i], "", "tokens",
                                    "tokens", MatrixKind::attention_weights)
                           .in_family("head_weights_tiled", int(i)));
    list.push_back({"output_tiled", tiled.output, "the same weights read with i mod g", "tokens", "dimensions"});
    return list;
}

std::vector<ModelCache> real_models() {
    std::vector<ModelCache> models;
    for (const PublishedModel& p : published_models()) {
        if (p.d_c != 0) continue;  // a latent cache (chapter 18) has no key–value heads to count
        ModelCache m{p.name, p.layers, p.h, p.g, p.d_h, p.source, 0, 0, 0, 0, 0, 0};
        m.with_h = kv_cache_bytes_per_token(m.layers, m.h, m.d_k, 2);
        m.with_g = kv_cache_bytes_per_token(m.layers, m.g, m.d_k, 2);
        m.with_1 = kv_cache_bytes_per_token(m.layers, 1, m.d_k, 2);
        m.context_mib_h = m.with_h * context_tokens >> 20;
        m.context_mib_g = m.with_g * context_tokens >> 20;
        m.context_mib_1 = m.with_1 * context_tokens >> 20;
        models.push_back(m);
    }
    return models;
}
