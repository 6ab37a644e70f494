// Attention written out as loops in double, straight from the formula: the reference that
// the chapters' self-checks compare their float32 attention with, written once.
//
//   s_ij          = q_i · k_j / √d_k                       for the keys j that query i sees
//   weights(i, j) = exp(s_ij − max_j s_ij) / Σ_j exp(s_ij − max_j s_ij),  0 for the others
//   output(i, :)  = Σ_j weights(i, j) · v_j
//
// Which keys a query sees (KeysSeen): all of them (an encoder), j ≤ i (causal), the last w
// of them (a causal window), those where an additive mask is not −∞ (the mask is added to
// the scores, as chapter 06 does), w keys centred on the query (a sliding window, chapter 10),
// or LongNet's dilated segments (chapter 10). A query that sees no key has no weights to
// normalise: its rows of weights and of output are 0, the convention of common/attention/softmax.hpp.
//
// In LongNet's pattern a key may be seen through several (segment, dilation) pairs: the
// pairs' outputs mixed by their softmax denominators are one softmax over every (pair, key)
// entry, so such a key counts as many times as it is seen (times(i, j) = 2: e^s twice).
//
// With heads, query head i reads columns [i·d_k, (i+1)·d_k) of Q and the columns of its group
// g = i / (h / kv_heads) of K and V; kv_heads = h is multi-head attention, kv_heads = 1
// multi-query (chapter 15). The heads' outputs sit side by side: (n × h·d_v).
#pragma once

#include <cstddef>
#include <vector>

#include "common/long_context/long_attention.hpp"
#include "common/numbers/matrix.hpp"

// Which keys each query sees.
struct KeysSeen {
    enum class Kind { all, causal, window, mask, centred_window, dilated };
    Kind kind = Kind::all;
    std::size_t window = 0;       // Kind::window: keys i − w < j ≤ i; Kind::centred_window: w keys
    const Matrix* mask = nullptr;  // Kind::mask: (n × m) added to the scores; −∞ hides a key
    std::size_t keys = 0;          // Kind::centred_window and Kind::dilated: m, the number of keys
    const std::vector<DilatedPair>* pairs = nullptr;  // Kind::dilated

    static KeysSeen all_keys() { return {}; }
    static KeysSeen causal() { return {Kind::causal, 0, nullptr}; }
    static KeysSeen causal_window(std::size_t w) { return {Kind::window, w, nullptr}; }
    static KeysSeen masked(const Matrix& additive_mask) { return {Kind::mask, 0, &additive_mask}; }
    // Keys [b, b + w), b = i − ⌊w/2⌋ shifted inward at the ends so that every query sees
    // exactly w keys (all m of them when w ≥ m).
    static KeysSeen centred_window(std::size_t w, std::size_t m) { return {Kind::centred_window, w, nullptr, m}; }
    // For each pair (w, r): the segments [s·w, s·w + w) of the m keys, in which the tokens
    // s·w, s·w + r, s·w + 2r, … see each other. `dilated_pairs` must outlive the KeysSeen.
    static KeysSeen dilated(const std::vector<DilatedPair>& dilated_pairs, std::size_t m) {
        return {Kind::dilated, 0, nullptr, m, &dilated_pairs};
    }

    bool sees(std::size_t i, std::size_t j) const { return times(i, j) > 0; }
    std::size_t times(std::size_t i, std::size_t j) const;  // how often query i sees key j: 0, 1, or more (dilated)
    double added(std::size_t i, std::size_t j) const;  // the mask's term of s_ij (0 unless Kind::mask)
};

struct AttentionByLoops {
    Matrix weights;  // (n × m) 0 for the keys a query does not see
    Matrix output;   // (n × d_v)
    // max over i, j of Σ_c |q_ic · k_jc| / √d_k: the size of a score, which sets the size of
    // its float32 rounding (a self-check's tolerance scales with it).
    double score_size = 0.0;
};

// One head. Q (n × d_k), K (m × d_k), V (m × d_v).
AttentionByLoops attention_by_loops(const Matrix& Q, const Matrix& K, const Matrix& V,
                                    const KeysSeen& seen = KeysSeen::all_keys());

struct HeadsByLoops {
    std::vector<Matrix> weights;  // h of (n × m)
    Matrix output;                // (n × h·d_v) the heads side by side
    double score_size = 0.0;      // the largest of the heads'
};

// h query heads over kv_heads key/value heads. Q (n × h·d_k), K (m × kv_heads·d_k),
// V (m × kv_heads·d_v); kv_heads divides h.
HeadsByLoops heads_by_loops(const Matrix& Q, const Matrix& K, const Matrix& V, std::size_t h, std::size_t kv_heads,
                            const KeysSeen& seen = KeysSeen::all_keys());
