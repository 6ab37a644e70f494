#include "chapters/15_grouped_query/math.hpp"

#include <algorithm>
#include <cmath>

#include "common/math/attention.hpp"
#include "common/math/matmul.hpp"
#include "common/math/project_in_double.hpp"

GroupedWeights random_weights(std::size_t d_model, std::size_t h, std::size_t g, Random& random) {
    const std::size_t d_k = d_model / h;
    const float scale = std::sqrt(2.0f / static_cast<float>(d_model));  // wide enough that heads differ
    GroupedWeights W;
    W.W_Q = random.normal_matrix(d_model, h * d_k, scale);  // (d_model × h·d_k)
    W.W_K = random.normal_matrix(d_model, g * d_k, scale);  // (d_model × g·d_k)
    W.W_V = random.normal_matrix(d_model, g * d_k, scale);  // (d_model × g·d_v)
    W.W_O = random.normal_matrix(h * d_k, d_model, 1.0f / std::sqrt(static_cast<float>(d_model)));
    return W;
}

std::size_t kv_head_of(std::size_t i, std::size_t h, std::size_t g) {
    // ┌ exercise kv-mapping
    return i / (h / g);  // h/g query heads per key–value head, next to each other
    // └ stub: return 0;
}

std::size_t kv_head_tiled(std::size_t i, std::size_t g) { return i % g; }

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

GroupedLesson grouped_lesson(const Matrix& X, const GroupedWeights& W, std::size_t h, std::size_t g) {
    GroupedLesson r;
    r.h = h, r.g = g, r.d_k = cols(X) / h;
    r.grouped = grouped_query_attention(X, W, h, g, Mapping::interleave);
    r.tiled = grouped_query_attention(X, W, h, g, Mapping::tiling);
    // the same layer as multi-head attention whose key–value heads come in identical runs of h/g
    r.W_K_repeated = repeat_kv_columns(W.W_K, g, h);
    r.W_V_repeated = repeat_kv_columns(W.W_V, g, h);
    r.as_multi_head = multi_head_attention(X, W.W_Q, r.W_K_repeated, r.W_V_repeated, W.W_O, h);
    r.by_loops = grouped_by_loops(X, W, h, g, Mapping::interleave);
    r.tiled_by_loops = grouped_by_loops(X, W, h, g, Mapping::tiling);
    return r;
}

ByLoops grouped_by_loops(const Matrix& X, const GroupedWeights& W, std::size_t h, std::size_t g, Mapping mapping) {
    const std::size_t n = rows(X), d_k = cols(W.W_Q) / h, per_group = h / g;
    // X · W_Q, X · W_K, X · W_V in double; h·d_k, g·d_k, g·d_v
    const auto Q = project_in_double(X, W.W_Q);
    const auto K = project_in_double(X, W.W_K);
    const auto V = project_in_double(X, W.W_V);
    const auto Q_size = project_in_double(X, W.W_Q, true);
    const auto K_size = project_in_double(X, W.W_K, true);
    std::vector<std::vector<double>> concat(n, std::vector<double>(h * d_k, 0.0));
    ByLoops r;
    r.weights.assign(h, Matrix::from_shape({n, n}));
    for (std::size_t j = 0; j < g; ++j)  // key–value head j …
        for (std::size_t m = 0; m < per_group; ++m) {  // … and the m-th query head of its group
            const std::size_t i = mapping == Mapping::interleave ? j * per_group + m : m * g + j;
            for (std::size_t q = 0; q < n; ++q) {
                std::vector<double> s(n);  // query q of head i against every key of head j
                for (std::size_t t = 0; t < n; ++t) {
                    double dot = 0.0, size = 0.0;
                    for (std::size_t c = 0; c < d_k; ++c)
                        dot += Q[q][i * d_k + c] * K[t][j * d_k + c],
                            size += Q_size[q][i * d_k + c] * K_size[t][j * d_k + c];
                    s[t] = dot / std::sqrt(double(d_k));
                    r.score_size = std::max(r.score_size, size / std::sqrt(double(d_k)));
                }
                const double top = *std::max_element(s.begin(), s.end());
                double z = 0.0;
                for (double& e : s) z += (e = std::exp(e - top));  // softmax: exp, sum, …
                for (std::size_t t = 0; t < n; ++t) {               // … normalise, weigh head j's values
                    r.weights[i](q, t) = static_cast<float>(s[t] / z);
                    for (std::size_t c = 0; c < d_k; ++c) concat[q][i * d_k + c] += s[t] / z * V[t][j * d_k + c];
                }
            }
        }
    r.output = times_in_double(concat, W.W_O);                                // concat · W_O
    r.value_size = largest_abs(V) * largest_column_sum(W.W_O);  // what the output's rounding is relative to
    return r;
}

std::uint64_t kv_cache_bytes_per_token(std::uint64_t layers, std::uint64_t g, std::uint64_t d_k,
                                       std::uint64_t bytes_per_number) {
    return 2 * layers * g * d_k * bytes_per_number;  // K and V, in every layer, for each key–value head
}
