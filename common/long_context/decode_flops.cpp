#include "common/long_context/decode_flops.hpp"

DecodeFlops decode_flops(std::uint64_t d_model, const LatentShape& s, std::uint64_t L) {
    const std::uint64_t h = s.h, d_h = s.d_h, d_c = s.d_c, d_cq = s.d_cq, d_r = s.d_rope;
    DecodeFlops f;
    // the new token's c_KV, k_R, c_Q; then q_C and q_R from c_Q
    f.shared = 2 * d_model * (d_c + d_r + d_cq) + 2 * d_cq * h * (d_h + d_r);
    // scores over L keys d_h + d_h^R wide, weights · V, then W_O: the same in both naive forms
    const std::uint64_t attend = 2 * L * h * (d_h + d_r) + 2 * L * h * d_h + 2 * h * d_h * d_model;
    f.naive_latent = 2 * 2 * L * d_c * h * d_h + attend;  // K and V of all L tokens from c_KV
    f.naive_kv = 2 * 2 * d_c * h * d_h + attend;          // only the new token's K and V
    // Q_i · W_UK_iᵀ; scores over L latents d_c + d_h^R wide; weights · c_KV; · (W_UV_i · W_O_i)
    f.absorbed = 2 * h * d_h * d_c + 2 * L * h * (d_c + d_r) + 2 * L * h * d_c + 2 * h * d_c * d_model;
    return f;
}

LatentShape shape_of(const PublishedModel& m) {
    const auto size = [](std::uint64_t n) { return static_cast<std::size_t>(n); };  // 32 bits in WebAssembly
    return {size(m.h), size(m.d_h), size(m.d_c), size(m.d_cq), size(m.d_rope)};
}
