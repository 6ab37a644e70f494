// The weights of one multi-head latent attention layer (MLA, DeepSeek-AI 2024, "DeepSeek-V2",
// §2.1), in this project's row-vector convention (x · W):
//
//   c_Q  = x · W_DQ     (d_model → d_c')   the queries' latent
//   q_C  = c_Q · W_UQ   (d_c' → h·d_h)     head i owns columns [i·d_h, (i+1)·d_h)
//   q_R  = c_Q · W_QR   (d_c' → h·d_h^R)   head i owns columns [i·d_h^R, (i+1)·d_h^R), then RoPE
//   c_KV = x · W_DKV    (d_model → d_c)    the keys' and values' latent: what the cache keeps
//   k_C  = c_KV · W_UK  (d_c → h·d_h)
//   v    = c_KV · W_UV  (d_c → h·d_h)
//   k_R  = x · W_KR     (d_model → d_h^R)  one key for every head, then RoPE: the cache keeps it too
//   u    = concat_heads(o) · W_O   (h·d_h → d_model)
#pragma once

#include <cstddef>

#include "common/numbers/matrix.hpp"
#include "common/numbers/random.hpp"

// h heads of d_h, the latents' widths d_c (keys and values) and d_c' (queries), and the
// width d_h^R of the decoupled RoPE query and key (even).
struct LatentShape {
    std::size_t h = 2, d_h = 8, d_c = 8, d_cq = 12, d_rope = 4;
};

struct LatentWeights {
    Matrix W_DQ;   // (d_model × d_c')
    Matrix W_UQ;   // (d_c' × h·d_h)
    Matrix W_QR;   // (d_c' × h·d_h^R)
    Matrix W_DKV;  // (d_model × d_c)
    Matrix W_UK;   // (d_c × h·d_h)
    Matrix W_UV;   // (d_c × h·d_h)
    Matrix W_KR;   // (d_model × d_h^R)
    Matrix W_O;    // (h·d_h × d_model)
};

// Normal entries with standard deviation 1/√(rows) for the down-projections, W_UV and W_O, and
// √(2/rows) for the matrices that make queries and keys (W_UQ, W_QR, W_UK, W_KR), so that the
// softmaxes peak; drawn in the order of the struct from `random`.
LatentWeights random_latent_weights(std::size_t d_model, const LatentShape& s, Random& random);
