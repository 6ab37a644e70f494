#include "common/reference/attention_by_loops.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

std::size_t KeysSeen::times(std::size_t i, std::size_t j) const {
    switch (kind) {
        case Kind::all: return 1;
        case Kind::causal: return j <= i ? 1 : 0;
        case Kind::window: return j <= i && i - j < window ? 1 : 0;
        case Kind::mask: return (*mask)(i, j) != -std::numeric_limits<float>::infinity() ? 1 : 0;
        case Kind::centred_window: {
            if (window >= keys) return 1;
            const std::size_t centred = i >= window / 2 ? i - window / 2 : 0;  // i − ⌊w/2⌋, not below 0
            const std::size_t b = std::min(centred, keys - window);           // nor past the last key
            return b <= j && j < b + window ? 1 : 0;
        }
        case Kind::dilated: {
            std::size_t seen = 0;
            for (const DilatedPair& p : *pairs) {
                const std::size_t w = std::min(p.segment, keys), start = i / w * w;  // i's segment
                const bool together = j / w == i / w;  // j in the same segment
                if (together && (i - start) % p.dilation == 0 && (j - start) % p.dilation == 0) ++seen;
            }
            return seen;
        }
    }
    return 1;
}

double KeysSeen::added(std::size_t i, std::size_t j) const {
    return kind == Kind::mask ? double((*mask)(i, j)) : 0.0;
}

namespace {

// One head on column blocks: query columns [q0, q0 + d_k), key columns [k0, k0 + d_k),
// value columns [v0, v0 + d_v); its output goes to columns [o0, o0 + d_v) of `output`.
double one_head(const Matrix& Q, const Matrix& K, const Matrix& V, std::size_t q0, std::size_t k0, std::size_t v0,
                std::size_t d_k, std::size_t d_v, const KeysSeen& seen, Matrix& weights, Matrix& output,
                std::size_t o0) {
    const std::size_t n = rows(Q), m = rows(K);
    const double scale = 1.0 / std::sqrt(double(d_k));
    double score_size = 0.0;
    std::vector<double> e(m);
    for (std::size_t i = 0; i < n; ++i) {
        // 1. the scores of the keys query i sees, and their largest
        double largest = -std::numeric_limits<double>::infinity();
        for (std::size_t j = 0; j < m; ++j) {
            if (!seen.sees(i, j)) continue;
            double dot = 0.0, size = 0.0;
            for (std::size_t c = 0; c < d_k; ++c) {
                const double term = double(Q(i, q0 + c)) * double(K(j, k0 + c));
                dot += term;
                size += std::abs(term);
            }
            e[j] = dot * scale + seen.added(i, j);
            score_size = std::max(score_size, size * scale);
            largest = std::max(largest, e[j]);
        }
        // 2. exp(s − largest), once per time the key is seen, and their sum; a query that
        //    sees no key keeps a row of 0
        double sum = 0.0;
        for (std::size_t j = 0; j < m; ++j) {
            const std::size_t times = seen.times(i, j);
            e[j] = times > 0 ? double(times) * std::exp(e[j] - largest) : 0.0;
            sum += e[j];
        }
        if (sum == 0.0) sum = 1.0;
        // 3. the weights, and the weighted sum of the values
        for (std::size_t j = 0; j < m; ++j) weights(i, j) = float(e[j] / sum);
        for (std::size_t d = 0; d < d_v; ++d) {
            double acc = 0.0;
            for (std::size_t j = 0; j < m; ++j)
                if (seen.sees(i, j)) acc += e[j] / sum * double(V(j, v0 + d));
            output(i, o0 + d) = float(acc);
        }
    }
    return score_size;
}

}  // namespace

AttentionByLoops attention_by_loops(const Matrix& Q, const Matrix& K, const Matrix& V, const KeysSeen& seen) {
    AttentionByLoops r{Matrix::from_shape({rows(Q), rows(K)}), Matrix::from_shape({rows(Q), cols(V)})};
    r.score_size = one_head(Q, K, V, 0, 0, 0, cols(Q), cols(V), seen, r.weights, r.output, 0);
    return r;
}

HeadsByLoops heads_by_loops(const Matrix& Q, const Matrix& K, const Matrix& V, std::size_t h, std::size_t kv_heads,
                            const KeysSeen& seen) {
    const std::size_t d_k = cols(Q) / h, d_v = cols(V) / kv_heads, per_group = h / kv_heads;
    HeadsByLoops r;
    r.output = Matrix::from_shape({rows(Q), h * d_v});
    for (std::size_t i = 0; i < h; ++i) {
        const std::size_t g = i / per_group;
        Matrix weights = Matrix::from_shape({rows(Q), rows(K)});
        r.score_size = std::max(r.score_size, one_head(Q, K, V, i * d_k, g * d_k, g * d_v, d_k, d_v, seen, weights,
                                                       r.output, i * d_v));
        r.weights.push_back(std::move(weights));
    }
    return r;
}
