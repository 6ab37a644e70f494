// Attention over long sequences: the same softmax(Q · Kᵀ / √d_k) · V computed
// four ways, from the one that stores every score to ones that store none.
//
//   materialised    the n × n weights in full: O(n²) memory, O(n²·d) time
//   streaming       exact, tiled over blocks of queries and keys with the
//                   online softmax (FlashAttention-2 ordering): O(n·d) memory
//   sliding window  each query sees w keys, centred on it and shifted inward
//                   at the ends, so every query sees exactly w (Longformer's
//                   window is w/2 keys each side, fewer at the ends, plus global
//                   tokens): O(n·w·d) time, approximate
//   dilated         LongNet: segments of length w, every r-th token, several
//                   (w, r) pairs mixed by their softmax denominators
//
// Shapes: Q (n × d_k), K (m × d_k), V (m × d_v), output (n × d_v); one head,
// float32. The scale 1/√d_k is applied inside.
#pragma once

#include <cstdint>
#include <vector>

#include "common/numbers/matrix.hpp"

// Tile sizes of the streaming kernel: block_q queries meet block_k keys at a time.
struct AttentionBlocks {
    std::size_t q = 128;
    std::size_t k = 256;
};

// The tiles the kernel really uses for n queries and m keys: a block is at most
// the whole sequence (a block of 65536 over 256 tokens is one tile of 256).
AttentionBlocks clamped_blocks(AttentionBlocks blocks, std::size_t n, std::size_t m);

// softmax(Q · Kᵀ / √d_k) · V with the (n × m) weights stored in full.
// causal: query i sees keys 0 … i only.
Matrix materialised_attention(const Matrix& Q, const Matrix& K, const Matrix& V, bool causal = false);

// The same result without the n × m matrix: one (block_q × block_k) tile of
// scores at a time, a running maximum m and denominator l per query, and the
// running output rescaled by exp(m_old − m_new) whenever the maximum grows.
Matrix streaming_attention(const Matrix& Q, const Matrix& K, const Matrix& V, AttentionBlocks blocks = {},
                           bool causal = false);

// streaming_attention writing the output over Q (d_v must equal d_k): no memory
// beyond Q, K, V and one tile. Each block of Q is read to the end before its
// output is written, so overwriting it is safe.
void streaming_attention_in_place(Matrix& Q_then_output, const Matrix& K, const Matrix& V,
                                  AttentionBlocks blocks = {});

// Which keys query i of n sees in a sliding window of w: the range
// [begin, begin + w) centred on i and shifted inward at the ends of the
// sequence, so every query sees exactly min(w, n) keys. w ≥ n: every key.
std::size_t window_begin(std::size_t i, std::size_t n, std::size_t w);

// Self-attention (n = m) where query i sees only its window of w keys.
Matrix sliding_window_attention(const Matrix& Q, const Matrix& K, const Matrix& V, std::size_t window,
                                AttentionBlocks blocks = {});

// One (segment, dilation) pair of LongNet's dilated attention.
struct DilatedPair {
    std::size_t segment;   // w: the sequence is cut into segments of w tokens
    std::size_t dilation;  // r: within a segment, every r-th token takes part
};

// LongNet's dilated attention (Ding et al. 2023), one head, offset 0: for each
// pair, each segment [s·w, s·w + w) attends among its tokens s·w, s·w + r,
// s·w + 2r, …; a token's outputs from the pairs that include it are mixed with
// weights proportional to their softmax denominators (exactly as the online
// softmax merges two blocks of keys). Every token must be in some pair, so one
// pair needs r = 1. One pair (w ≥ n, r = 1) is full attention.
Matrix dilated_attention(const Matrix& Q, const Matrix& K, const Matrix& V, const std::vector<DilatedPair>& pairs,
                         AttentionBlocks blocks = {});

// Multiply–adds ×2 of the two products Q·Kᵀ and P·V (the exact kernels do
// 4·n·m·d with d_k = d_v = d), and of the sparse patterns' useful work.
double exact_attention_flops(std::size_t n, std::size_t m, std::size_t d);
double sliding_window_flops(std::size_t n, std::size_t window, std::size_t d);
double dilated_flops(std::size_t n, const std::vector<DilatedPair>& pairs, std::size_t d);

// Bytes each method holds beyond its inputs Q, K, V (output included), n queries
// and n keys for streaming (its tiles clamped as above).
std::uint64_t materialised_extra_bytes(std::size_t n, std::size_t m, std::size_t d_v);
std::uint64_t streaming_extra_bytes(std::size_t n, std::size_t d_v, AttentionBlocks blocks);

// OpenBLAS's thread count: the measurements here use one, for both our kernels
// and numpy, so that their times compare like for like.
void set_blas_threads(int threads);
int blas_threads();
