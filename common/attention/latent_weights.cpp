#include "common/attention/latent_weights.hpp"

#include <cmath>

LatentWeights random_latent_weights(std::size_t d_model, const LatentShape& s, Random& random) {
    const auto plain = [&](std::size_t r, std::size_t c) { return random.normal_matrix(r, c, 1.0f / std::sqrt(float(r))); };
    const auto wide = [&](std::size_t r, std::size_t c) { return random.normal_matrix(r, c, std::sqrt(2.0f / float(r))); };
    LatentWeights W;
    W.W_DQ = plain(d_model, s.d_cq);
    W.W_UQ = wide(s.d_cq, s.h * s.d_h);
    W.W_QR = wide(s.d_cq, s.h * s.d_rope);
    W.W_DKV = plain(d_model, s.d_c);
    W.W_UK = wide(s.d_c, s.h * s.d_h);
    W.W_UV = plain(s.d_c, s.h * s.d_h);
    W.W_KR = wide(d_model, s.d_rope);
    W.W_O = plain(s.h * s.d_h, d_model);
    return W;
}
