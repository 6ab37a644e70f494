#include "chapters/05_projections/math.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/attention/softmax.hpp"
#include "common/numbers/matmul.hpp"

// X (n × d_model), W (d_model × d_out) → (n × d_out): each token's row times W.
Matrix project(const Matrix& X, const Matrix& W) {
    // ┌ exercise projection
    return matmul(X, W);  // out(i, c) = Σ_a X(i, a) · W(a, c)
    // └ stub: return Matrix(xt::zeros<float>({rows(X), cols(W)}));
}

// Q (n × d_k), K (m × d_k), V (m × d_v).
LoopForm attention_by_loops(const Matrix& Q, const Matrix& K, const Matrix& V) {
    const std::size_t n = rows(Q), m = rows(K), d_v = cols(V);
    LoopForm r{Matrix::from_shape({n, m}), Matrix::from_shape({n, m}), Matrix::from_shape({n, m}),
               Matrix::from_shape({n, d_v})};
    for (Matrix* each : {&r.scores, &r.scaled_scores, &r.weights, &r.output}) each->fill(0.0f);
    // ┌ exercise attention-by-loops
    const std::size_t d_k = cols(Q);
    const double root_d_k = std::sqrt(static_cast<double>(d_k));
    for (std::size_t i = 0; i < n; ++i) {  // one query at a time
        // 1. the scaled score of query i against every key, and their maximum
        std::vector<double> s(m), w(m);
        double largest = -INFINITY;
        for (std::size_t j = 0; j < m; ++j) {
            double dot = 0.0;
            for (std::size_t d = 0; d < d_k; ++d) dot += double(Q(i, d)) * K(j, d);
            r.scores(i, j) = static_cast<float>(dot);
            s[j] = dot / root_d_k;
            r.scaled_scores(i, j) = static_cast<float>(s[j]);
            largest = std::max(largest, s[j]);
        }
        // 2. softmax over the keys (shifted by the maximum, chapter 02)
        double sum = 0.0;
        for (std::size_t j = 0; j < m; ++j) sum += (w[j] = std::exp(s[j] - largest));
        for (std::size_t j = 0; j < m; ++j) r.weights(i, j) = static_cast<float>(w[j] /= sum);
        // 3. the weighted sum of the values
        for (std::size_t d = 0; d < d_v; ++d) {
            double acc = 0.0;
            for (std::size_t j = 0; j < m; ++j) acc += w[j] * V(j, d);
            r.output(i, d) = static_cast<float>(acc);
        }
    }
    // └ stub: r.output.fill(0.0f);
    return r;
}

// weights (n × m), V (m × d_v) → (m × d_v)
Matrix weighted_values(const Matrix& weights, const Matrix& V, std::size_t i) {
    Matrix terms = Matrix::from_shape({rows(V), cols(V)});
    for (std::size_t j = 0; j < rows(V); ++j)
        for (std::size_t d = 0; d < cols(V); ++d) terms(j, d) = weights(i, j) * V(j, d);
    return terms;
}

Asymmetry largest_asymmetry(const Matrix& scores) {
    Asymmetry a;
    for (std::size_t i = 0; i < rows(scores); ++i)
        for (std::size_t j = 0; j < cols(scores); ++j)
            if (std::abs(scores(i, j) - scores(j, i)) > a.amount)
                a = {i, j, std::abs(scores(i, j) - scores(j, i))};
    if (scores.size() > 0 && scores(a.i, a.j) < scores(a.j, a.i)) std::swap(a.i, a.j);
    return a;
}

std::size_t queries_preferring_another(const Matrix& scores) {
    std::size_t count = 0;  // a tie with itself (a repeated token) is not a preference
    for (std::size_t i = 0; i < rows(scores); ++i) {
        bool another_higher = false;
        for (std::size_t j = 0; j < cols(scores); ++j) another_higher |= j != i && scores(i, j) > scores(i, i);
        count += another_higher;
    }
    return count;
}

bool is_symmetric(const Matrix& m, float tolerance) {
    for (std::size_t r = 0; r < rows(m); ++r)
        for (std::size_t c = 0; c < r; ++c)
            if (std::abs(m(r, c) - m(c, r)) > tolerance) return false;
    return true;
}

std::vector<std::pair<std::size_t, std::size_t>> largest_entries(const Matrix& m, std::size_t count) {
    std::vector<std::pair<std::size_t, std::size_t>> entries;
    for (std::size_t a = 0; a < rows(m); ++a)
        for (std::size_t b = 0; b < cols(m); ++b) entries.emplace_back(a, b);
    std::stable_sort(entries.begin(), entries.end(),
                     [&](const auto& x, const auto& y) { return m(x.first, x.second) > m(y.first, y.second); });
    entries.resize(std::min(count, entries.size()));
    return entries;
}

Projected project_and_attend(const Matrix& X, const Matrix& W_Q, const Matrix& W_K, const Matrix& W_V) {
    Projected r;
    r.W_Q = W_Q, r.W_K = W_K, r.W_V = W_V;
    // pass 1: three views of each token, (n × d_model) · (d_model × d_k) → (n × d_k)
    r.Q = project(X, W_Q);
    r.K = project(X, W_K);
    r.V = project(X, W_V);  // (n × d_v)
    // pass 2: attention in matrix form, softmax(Q · Kᵀ / √d_k) · V
    r.attention = scaled_dot_product_attention(r.Q, r.K, r.V);
    // pass 3: the same with loops, one query and one key at a time
    r.loops = attention_by_loops(r.Q, r.K, r.V);
    r.last_query_terms = weighted_values(r.loops.weights, r.V, rows(X) - 1);
    // pass 4: what the projections did to the scores
    r.asymmetry = largest_asymmetry(r.attention.scores);
    r.not_self = queries_preferring_another(r.attention.scores);
    r.W_QK = matmul_transposed(W_Q, W_K);  // (d_model × d_k) · (d_k × d_model) → (d_model × d_model)
    r.qk_symmetric = is_symmetric(r.W_QK, 1e-6f);
    r.strongest = largest_entries(r.W_QK, 5);
    return r;
}

RawAndProjected raw_and_projected(const Matrix& X, const Matrix& W_Q, const Matrix& W_K, const Matrix& W_V) {
    RawAndProjected r;
    r.X = X;
    // without projections (chapters 01–04): softmax(X · Xᵀ / √d_model)
    r.raw_scores = matmul_transposed(X, X);
    r.raw_weights = softmax_rows(r.raw_scores / std::sqrt(static_cast<float>(cols(X))));
    // with them
    r.Q = project(X, W_Q);
    r.K = project(X, W_K);
    r.V = project(X, W_V);
    r.projected = scaled_dot_product_attention(r.Q, r.K, r.V);
    return r;
}
