// The four ways a head mixes its tokens (mixer.hpp gives the formulas, forward and backward),
// for the attention-only model (common/copy_model/) and the GPT (common/gpt/) to call. Each runs one
// head on one sequence: rows r0 … r0 + n − 1 of the head's (B·n × ·) matrices. Each file holds
// a mixer's forward pass beside its backward pass, in float and double:
//   mixer_softmax.cpp     softmax, which keys it reads (window, sinks, top-k) and its sink logit
//   mixer_linear.cpp      linear attention
//   mixer_delta_rule.cpp  the delta rule and the gated delta rule, with their gates
#pragma once

#include <cstddef>
#include <memory>

#include "common/numbers/matrix.hpp"  // Mat<T>
#include "common/token_mixers/mixer.hpp"

namespace token_mixers {

// ---- softmax ----

// Which keys a softmax head reads, and its sink (the variants of the header); the defaults:
// every earlier key, no sink.
template <class T>
struct KeyChoice {
    std::size_t window = 0, sinks = 0, top_k = 0;
    const Mat<T>* index_scores = nullptr;  // (B·n × n) the indexer's scores (top_k); none: the head's own
    const Mat<T>* sink = nullptr;          // (1 × 1) s_h (sink_logit)
    Mat<T>* sink_share = nullptr;          // (B·n × 1) a_sink,i, written by attend
    bool plain() const { return window == 0 && top_k == 0 && !sink; }
};

// A = causal softmax of Q Kᵀ / √d_h over the keys the choice keeps, Z = A V (d_h: the width of Q
// and K; V and Z may be narrower, as MLA's).
template <class T>
void attend(const Mat<T>& Q, const Mat<T>& K, const Mat<T>& V, Mat<T>& A, Mat<T>& Z, std::size_t r0, std::size_t n,
            const KeyChoice<T>& choice = {});
// dZ → dQ, dK, dV; with a sink, d_sink −= Σ_i a_sink,i · rowsum(dA ⊙ A)_i.
template <class T>
void attend_backward(const Mat<T>& Q, const Mat<T>& K, const Mat<T>& V, const Mat<T>& A, const Mat<T>& dZ,
                     Mat<T>& dQ, Mat<T>& dK, Mat<T>& dV, std::size_t r0, std::size_t n,
                     const Mat<T>* sink_share = nullptr, T* d_sink = nullptr);
// The top-k indexer's scores q_i^I · k_j^I of every sequence (B·n × n), IQ, IK (B·n × r).
template <class T>
Mat<T> indexer_scores(const Mat<T>& IQ, const Mat<T>& IK, std::size_t B, std::size_t n);

// The backward pass of Z = A V, which softmax and linear attention share: dA, dV, and the
// rows' Σ_j dA_ij a_ij in `dots`.
template <class T>
void weighted_values_backward(const Mat<T>& V, const T* a, const T* dz, T* dv, T* dA, T* dots, std::size_t r0,
                              std::size_t n, std::size_t dh);

// count numbers, each written before it is read (a std::vector would first set them all to 0:
// two (n × n) matrices per sequence and head, 5 % of a training step).
template <class T>
std::unique_ptr<T[]> unset_numbers(std::size_t count) { return std::unique_ptr<T[]>(new T[count]); }

// ---- linear attention ----

// φ(M) = elu(M) + 1, entry by entry.
template <class T>
Mat<T> features(const Mat<T>& M);
// Rows [r0, r0 + n) of φ(M) into F (of M's shape): one sequence's, for a thread of its own.
template <class T>
void feature_rows(const Mat<T>& M, Mat<T>& F, std::size_t r0, std::size_t n);
// A = φ(Q) φ(K)ᵀ, causal, each row divided by its sum; Z = A V.
template <class T>
void linear_attend(const Mat<T>& phi_Q, const Mat<T>& phi_K, const Mat<T>& V, Mat<T>& A, Mat<T>& Z,
                   std::size_t r0, std::size_t n);
// dZ → dQ, dK, dV.
template <class T>
void linear_attend_backward(const Mat<T>& Q, const Mat<T>& K, const Mat<T>& phi_Q, const Mat<T>& phi_K,
                            const Mat<T>& V, const Mat<T>& A, const Mat<T>& dZ, Mat<T>& dQ, Mat<T>& dK, Mat<T>& dV,
                            std::size_t r0, std::size_t n);

// ---- the delta rule and the gated delta rule (alpha null: the delta rule) ----

// σ(X w + b) (B·n × 1): a gate per token.
template <class T>
Mat<T> gate(const Mat<T>& X, const Mat<T>& w, T b);
// The state S_t token by token: every S_t in `states`, Z, and the unrolled M in *A when A is given.
template <class T>
void delta_rule(const Mat<T>& Q, const Mat<T>& K, const Mat<T>& V, const Mat<T>& beta, const Mat<T>* alpha,
                Mat<T>& states, Mat<T>* A, Mat<T>& Z, std::size_t r0, std::size_t n);
// Back through time: dZ → dQ, dK, dV, dβ (and dα when d_alpha is given).
template <class T>
void delta_rule_backward(const Mat<T>& Q, const Mat<T>& K, const Mat<T>& V, const Mat<T>& beta,
                         const Mat<T>* alpha, const Mat<T>& states, const Mat<T>& dZ, Mat<T>& dQ, Mat<T>& dK,
                         Mat<T>& dV, Mat<T>& d_beta, Mat<T>* d_alpha, std::size_t r0, std::size_t n);

}  // namespace token_mixers
