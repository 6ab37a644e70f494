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

#include "common/math/matrix.hpp"

using Rows = std::vector<std::size_t>;  // global token positions, increasing

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

// The rows `at` of X, and X with those rows replaced by `block`.
Matrix take_rows(const Matrix& X, const Rows& at);
void put_rows(Matrix& X, const Rows& at, const Matrix& block);

// The (query, key) pairs rank r's queries see of the block of rank s: the work of one
// step, counted straight from the rule j ≤ i (n·n pairs without causal).
std::uint64_t visible_pairs(const Rows& q_rows, const Rows& k_rows, bool causal);

// The definition by loops in double: Σ_j softmax_j(q_i · k_j / √d) v_j over the keys
// query i sees (all, or j ≤ i). Independent of the blocks, the merge and BLAS.
Matrix attention_in_double(const Matrix& Q, const Matrix& K, const Matrix& V, bool causal);

// Traffic and work of the ring, per rank and step (float32, d_k = d_v = d):
//   bytes sent per step = 2·b·d·4 (one block of K and one of V), (P − 1) steps;
//   FLOPs per step      = 4·b·b·d (S = Q·Kᵀ and O = P·V, 2 per multiply–add).
std::uint64_t block_bytes(std::size_t b, std::size_t d);
double block_flops(std::uint64_t pairs, std::size_t d);

// Query i's largest score m and denominator ℓ = Σ_j exp(s_ij − m) over the keys it sees,
// in double: where the ring's running m and ℓ must end.
struct SoftmaxStats {
    double m, l;
};
SoftmaxStats softmax_stats_in_double(const Matrix& Q, std::size_t i, const Matrix& K, bool causal);

// The (query, key) pairs each rank computes over the whole ring: [rank], counted.
std::vector<std::uint64_t> work_per_rank(Layout layout, std::size_t n, std::size_t P, bool causal);
