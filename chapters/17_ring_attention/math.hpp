// Chapter 17 · the mathematics: ring attention, and merging partial softmax results.
//
// P processes (ranks) share one head of attention over n tokens. Rank r holds b_r ≈ n/P
// queries Q_r (b_r × d) and one block of keys and values K_s, V_s (b_s × d). Its queries'
// attention over ALL keys is built block by block, each block a partial result:
//
//   S   = Q_r · K_sᵀ / √d                       (b_r × b_s)  the scores against block s
//   m   = max_j S_ij                            (b_r)        each query's largest score
//   ℓ   = Σ_j exp(S_ij − m_i)                   (b_r)        its softmax denominator
//   O   = exp(S − m) · V_s                      (b_r × d)    its output, not yet divided by ℓ
//
// Two partial results over disjoint keys, (m_a, ℓ_a, O_a) and (m_b, ℓ_b, O_b), merge exactly:
//
//   m = max(m_a, m_b),   α = exp(m_a − m),   β = exp(m_b − m)
//   ℓ = α·ℓ_a + β·ℓ_b,   O = α·O_a + β·O_b   (row i of O scaled by α_i, β_i)
//
// and after the last block, output = O / ℓ (row by row): softmax(Q_r · Kᵀ/√d) · V exactly.
// The blocks travel round the ring r → r + 1 (mod P): after P − 1 passes every rank has
// merged every block. Which rows a rank holds is the layout: contiguous (rank r holds
// rows r·n/P …) or striped (rank r holds rows r, r + P, r + 2P, …; Brandon et al. 2023),
// which evens out the work of causal attention.
#pragma once

#include <cstdint>
#include <vector>

#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_rows.hpp"
#include "common/numbers/matrix_list.hpp"

using Rows = std::vector<std::size_t>;  // global token positions, increasing

// The inputs, drawn from the seed: the same on every rank, which keeps only its rows.
struct RingInputs {
    Matrix Q, K, V;  // (n × d) each

    // Rows are tokens t0, t1, …; columns dimensions d0, d1, ….
    MatrixList matrices() const {
        return {{"Q", Q, "", "tokens", "dimensions"},
                {"K", K, "", "tokens", "dimensions"},
                {"V", V, "", "tokens", "dimensions"}};
    }
};
RingInputs ring_inputs(std::size_t n, std::size_t d, std::uint64_t seed);

enum class Layout { contiguous, striped };

// The rows rank `rank` of P holds of n tokens. n need not divide by P: the first n mod P
// ranks hold one row more (contiguous), or rows r, r + P, … below n (striped).
Rows rows_of(Layout layout, std::size_t rank, std::size_t n, std::size_t P);
// The block rank `rank` holds at step t of the ring: it came from rank (rank − t) mod P.
std::size_t owner_at(std::size_t rank, std::size_t step, std::size_t P);

// One partial softmax result for b queries over some set of keys.
struct Partial {
    Vector m;  // (b)      the largest score seen per query (−∞: no key seen yet)
    Vector l;  // (b)      Σ exp(score − m) over the keys seen
    Matrix O;  // (b × d_v) Σ exp(score − m) · v over the keys seen
};

// Nothing seen yet: m = −∞, ℓ = 0, O = 0.
Partial empty_partial(std::size_t b, std::size_t dv);
// The queries Q_r (at positions q_rows) against one block K_s, V_s (at positions k_rows).
// causal: query i sees key j only when j ≤ i. `pairs` counts the (query, key) pairs seen.
Partial block_partial(const Matrix& Q_r, const Rows& q_rows, const Matrix& K_s, const Matrix& V_s, const Rows& k_rows,
                      bool causal, std::uint64_t& pairs);
// Merges two partial results over disjoint keys (the rule above).
Partial merge(const Partial& a, const Partial& b);
// O / ℓ row by row (a query that saw no key gets zeros).
Matrix normalise(const Partial& p);

// The rows `at` of X, and X with those rows replaced by `block`: take_rows, put_rows
// (common/numbers/matrix_rows.hpp).

// The (query, key) pairs rank r's queries see of the block of rank s: the work of one
// step, counted straight from the rule j ≤ i (n·n pairs without causal).
std::uint64_t visible_pairs(const Rows& q_rows, const Rows& k_rows, bool causal);

// Traffic and work of the ring, per rank and step (float32, d_k = d_v = d):
//   bytes sent per step = 2·b·d·4 (one block of K and one of V), (P − 1) steps;
//   FLOPs per step      = 4·b·b·d (S = Q·Kᵀ and O = P·V, 2 per multiply–add).
std::uint64_t block_bytes(std::size_t b, std::size_t d);
double block_flops(std::uint64_t pairs, std::size_t d);
// One step of a ring of P ranks at n = 1 024, 4 096, …, 1 048 576 tokens: b = n/P rows a block,
// the bytes it moves and the FLOPs of its b·b pairs (b/2 FLOPs per byte).
struct StepCost {
    std::uint64_t n, b, bytes, flops;
};
std::vector<StepCost> step_costs(std::size_t P, std::size_t d);

// The (query, key) pairs each rank computes over the whole ring: [rank], counted.
std::vector<std::uint64_t> work_per_rank(Layout layout, std::size_t n, std::size_t P, bool causal);

// A causal ring's work per rank with each layout, and how uneven it is: the busiest rank's
// pairs over the idlest's (at least 1), and the busiest's minus the idlest's.
struct CausalBalance {
    std::vector<std::uint64_t> contiguous, striped;  // [rank] pairs
    double contiguous_ratio = 1, striped_ratio = 1;
    std::uint64_t contiguous_spread = 0, striped_spread = 0;
};
CausalBalance causal_balance(std::size_t n, std::size_t P);

// The ranks the lesson's wide tables show: all of 0 … P−1 when P ≤ 6, else the first 3 and the last.
std::vector<std::size_t> shown_ranks(std::size_t P);
