#include "common/reference/softmax_stats_by_loops.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

SoftmaxStatsByLoops softmax_stats_by_loops(const Matrix& Q, const Matrix& K, const KeysSeen& seen) {
    const std::size_t n = rows(Q), m = rows(K), d_k = cols(Q);
    const double scale = 1.0 / std::sqrt(double(d_k));
    SoftmaxStatsByLoops r{std::vector<double>(n, -std::numeric_limits<double>::infinity()),
                          std::vector<double>(n, 0.0)};
    std::vector<double> s(m);
    for (std::size_t i = 0; i < n; ++i) {
        // 1. the scores of the keys query i sees, and their largest
        for (std::size_t j = 0; j < m; ++j) {
            if (!seen.sees(i, j)) continue;
            double dot = 0.0;
            for (std::size_t c = 0; c < d_k; ++c) dot += double(Q(i, c)) * double(K(j, c));
            s[j] = dot * scale + seen.added(i, j);
            r.m[i] = std::max(r.m[i], s[j]);
        }
        // 2. the denominator: Σ exp(s − m) over the same keys (none: it stays 0)
        for (std::size_t j = 0; j < m; ++j)
            if (seen.sees(i, j)) r.l[i] += std::exp(s[j] - r.m[i]);
    }
    return r;
}
