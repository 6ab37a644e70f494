// The position-wise feed-forward network (Vaswani et al. 2017, eq. 2):
//
//   FFN(x) = max(0, x · W_1 + b_1) · W_2 + b_2
//
//   x   (n × d_model)   W_1 (d_model × d_ff)   b_1 (d_ff)
//   hidden (n × d_ff)   W_2 (d_ff × d_model)   b_2 (d_model)
//
// d_ff = 4 · d_model in the paper and in GPT-2. "Position-wise": the same two
// layers are applied to every token on its own; row i of the output depends on
// row i of x only. GPT-2 uses GELU instead of max(0, ·) (ReLU).
#pragma once

#include <cmath>

#include "common/numbers/matrix.hpp"

enum class Activation { relu, gelu };

// max(0, z)
float relu(float z);
// GELU as GPT-2 computes it (the tanh approximation of z · Φ(z)):
// 0.5 · z · (1 + tanh(√(2/π) · (z + 0.044715 · z³)))
float gelu(float z);

// GELU exactly, z · Φ(z) = 0.5 · z · (1 + erf(z / √2)) (PyTorch's nn.GELU() by default,
// nanoGPT's MLP), in float or double, and its slope Φ(z) + z · φ(z), φ(z) = e^(−z²/2) / √(2π).
// erf in double either way: the C library's float erf differs in its last bit between versions.
template <class T>
T exact_gelu(T z) {
    return T(0.5 * double(z) * (1.0 + std::erf(double(z) * M_SQRT1_2)));
}
inline double normal_density(double z) { return std::exp(-0.5 * z * z) * 0.3989422804014327; }  // 1/√(2π)
template <class T>
T exact_normal_cdf(T z) {  // Φ(z)
    return T(0.5 * (1.0 + std::erf(double(z) * M_SQRT1_2)));
}
template <class T>
T exact_gelu_slope(T z) {  // Φ and φ in double, rounded to T once
    return T(exact_normal_cdf(double(z)) + double(z) * normal_density(double(z)));
}

struct FeedForward {
    Matrix W_1;  // (d_model × d_ff)
    Vector b_1;  // (d_ff)
    Matrix W_2;  // (d_ff × d_model)
    Vector b_2;  // (d_model)
    Activation activation = Activation::relu;
};

struct FeedForwardSteps {
    Matrix pre_activation;  // (n × d_ff)     x · W_1 + b_1
    Matrix hidden;          // (n × d_ff)     activation(pre_activation)
    Matrix output;          // (n × d_model)  hidden · W_2 + b_2
};

FeedForwardSteps feed_forward(const FeedForward& ffn, const Matrix& x);
