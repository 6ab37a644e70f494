#include "chapters/17_ring_attention/math.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <xtensor/xview.hpp>

#include "common/numbers/matmul.hpp"
#include "common/numbers/random.hpp"

namespace {

constexpr float minus_infinity = -std::numeric_limits<float>::infinity();
constexpr std::size_t query_tile = 64;  // queries per product in block_partial

// Rows begin … end − 1 of X, as a matrix of their own.
Matrix row_range(const Matrix& X, std::size_t begin, std::size_t end) {
    return xt::view(X, xt::range(begin, end), xt::all());
}

}  // namespace

RingInputs ring_inputs(std::size_t n, std::size_t d, std::uint64_t seed) {
    return {Random(seed).normal_matrix(n, d), Random(seed + 1).normal_matrix(n, d),
            Random(seed + 2).normal_matrix(n, d)};
}

Rows rows_of(Layout layout, std::size_t rank, std::size_t n, std::size_t P) {
    Rows at;
    if (layout == Layout::striped) {
        for (std::size_t i = rank; i < n; i += P) at.push_back(i);  // r, r + P, r + 2P, …
        return at;
    }
    const std::size_t base = n / P, extra = n % P;  // the first `extra` ranks hold base + 1 rows
    const std::size_t begin = rank * base + std::min(rank, extra);
    for (std::size_t i = 0; i < base + (rank < extra ? 1 : 0); ++i) at.push_back(begin + i);
    return at;
}

std::size_t owner_at(std::size_t rank, std::size_t step, std::size_t P) { return (rank + P - step % P) % P; }

Partial empty_partial(std::size_t b, std::size_t dv) {
    Partial p{Vector::from_shape({b}), xt::zeros<float>({b}), xt::zeros<float>({b, dv})};
    p.m.fill(minus_infinity);
    return p;
}

Partial block_partial(const Matrix& Q_r, const Rows& q_rows, const Matrix& K_s, const Matrix& V_s, const Rows& k_rows,
                      bool causal, std::uint64_t& pairs) {
    const float scale = 1.0f / std::sqrt(static_cast<float>(cols(Q_r)));
    Partial p = empty_partial(rows(Q_r), cols(V_s));
    // The queries in tiles of 64. With causal, a tile needs only the keys its last query
    // sees: a prefix of the block (positions increase), so hidden keys are mostly skipped.
    for (std::size_t top = 0; top < rows(Q_r); top += query_tile) {
        const std::size_t end = std::min(rows(Q_r), top + query_tile);
        const std::size_t keys =
            causal ? std::size_t(std::upper_bound(k_rows.begin(), k_rows.end(), q_rows[end - 1]) - k_rows.begin())
                   : rows(K_s);
        if (keys == 0) continue;  // every key of the block comes after these queries
        // 1. S = Q_tile · K_sᵀ / √d over those keys                (t × keys)
        Matrix S = matmul_transposed(row_range(Q_r, top, end), keys == rows(K_s) ? K_s : row_range(K_s, 0, keys));
        S *= scale;
        // 2. m_i = max over the keys query i sees; P = exp(S − m), 0 where hidden; ℓ_i = Σ_j P_ij
        for (std::size_t i = top; i < end; ++i) {
            const std::size_t seen =
                causal ? std::size_t(std::upper_bound(k_rows.begin(), k_rows.begin() + long(keys), q_rows[i]) -
                                     k_rows.begin())
                       : keys;
            for (std::size_t j = 0; j < seen; ++j) p.m(i) = std::max(p.m(i), S(i - top, j));
            for (std::size_t j = 0; j < keys; ++j) {
                S(i - top, j) = j < seen ? std::exp(S(i - top, j) - p.m(i)) : 0.0f;  // S now holds P
                p.l(i) += S(i - top, j);
            }
            pairs += seen;
        }
        // 3. O = P · V_s                                              (t × d_v)
        xt::view(p.O, xt::range(top, end), xt::all()) = matmul(S, keys == rows(V_s) ? V_s : row_range(V_s, 0, keys));
    }
    return p;
}

Partial merge(const Partial& a, const Partial& b) {
    Partial out = a;
    for (std::size_t i = 0; i < a.m.size(); ++i) {
        // ┌ exercise merge-partials
        const float m = std::max(a.m(i), b.m(i));
        // Neither side has seen a key of query i (causal, early blocks): nothing to merge.
        const float alpha = m == minus_infinity ? 0.0f : std::exp(a.m(i) - m);
        const float beta = m == minus_infinity ? 0.0f : std::exp(b.m(i) - m);
        out.m(i) = m;
        out.l(i) = alpha * a.l(i) + beta * b.l(i);
        for (std::size_t c = 0; c < cols(a.O); ++c) out.O(i, c) = alpha * a.O(i, c) + beta * b.O(i, c);
        // └ stub: out.m(i) = a.m(i);
    }
    return out;
}

Matrix normalise(const Partial& p) {
    Matrix out = p.O;  // (b × d_v)
    for (std::size_t i = 0; i < rows(out); ++i)
        for (std::size_t c = 0; c < cols(out); ++c) out(i, c) = p.l(i) > 0.0f ? p.O(i, c) / p.l(i) : 0.0f;
    return out;
}

std::uint64_t visible_pairs(const Rows& q_rows, const Rows& k_rows, bool causal) {
    std::uint64_t count = 0;
    for (const std::size_t i : q_rows)
        for (const std::size_t j : k_rows) count += (!causal || j <= i) ? 1 : 0;
    return count;
}

std::uint64_t block_bytes(std::size_t b, std::size_t d) { return 2ull * b * d * sizeof(float); }

double block_flops(std::uint64_t pairs, std::size_t d) { return 4.0 * double(pairs) * double(d); }

std::vector<StepCost> step_costs(std::size_t P, std::size_t d) {
    std::vector<StepCost> costs;
    for (std::uint64_t n = 1024; n <= (1u << 20); n *= 4) {
        const std::uint64_t b = n / P;
        costs.push_back({n, b, block_bytes(b, d), std::uint64_t(block_flops(b * b, d))});
    }
    return costs;
}

std::vector<std::uint64_t> work_per_rank(Layout layout, std::size_t n, std::size_t P, bool causal) {
    std::vector<std::uint64_t> work(P, 0);
    for (std::size_t r = 0; r < P; ++r)
        for (std::size_t s = 0; s < P; ++s)
            work[r] += visible_pairs(rows_of(layout, r, n, P), rows_of(layout, s, n, P), causal);
    return work;
}

CausalBalance causal_balance(std::size_t n, std::size_t P) {
    CausalBalance b{work_per_rank(Layout::contiguous, n, P, true), work_per_rank(Layout::striped, n, P, true)};
    const auto uneven = [](const std::vector<std::uint64_t>& work, double& ratio, std::uint64_t& spread) {
        const auto [least, most] = std::minmax_element(work.begin(), work.end());
        ratio = double(*most) / double(std::max<std::uint64_t>(1, *least)), spread = *most - *least;
    };
    uneven(b.contiguous, b.contiguous_ratio, b.contiguous_spread);
    uneven(b.striped, b.striped_ratio, b.striped_spread);
    return b;
}

std::vector<std::size_t> shown_ranks(std::size_t P) {
    std::vector<std::size_t> ranks;
    for (std::size_t r = 0; r < P; ++r)
        if (P <= 6 || r < 3 || r + 1 == P) ranks.push_back(r);
    return ranks;
}
