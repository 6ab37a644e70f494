#include "common/block/feed_forward.hpp"

#include <cmath>

#include "common/numbers/linear.hpp"

float relu(float z) { return z > 0.0f ? z : 0.0f; }

float gelu(float z) {
    // tanh in double: the C library's float tanh differs in its last bit between versions.
    const float sqrt_2_over_pi = 0.7978845608f;
    return 0.5f * z * (1.0f + float(std::tanh(double(sqrt_2_over_pi * (z + 0.044715f * z * z * z)))));
}

FeedForwardSteps feed_forward(const FeedForward& ffn, const Matrix& x) {
    FeedForwardSteps steps;
    steps.pre_activation = linear(x, ffn.W_1, ffn.b_1);  // (n × d_ff)
    steps.hidden = steps.pre_activation;
    for (auto& z : steps.hidden) z = ffn.activation == Activation::relu ? relu(z) : gelu(z);
    steps.output = linear(steps.hidden, ffn.W_2, ffn.b_2);  // (n × d_model)
    return steps;
}
