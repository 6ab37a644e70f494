#include "common/reference/block_by_loops.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/reference/layer_norm_by_loops.hpp"

Matrix linear_by_loops(const Matrix& x, const Matrix& W, const Vector& b) {
    Matrix y = Matrix::from_shape({rows(x), cols(W)});
    for (std::size_t t = 0; t < rows(x); ++t)
        for (std::size_t c = 0; c < cols(W); ++c) {
            double sum = b(c);
            for (std::size_t d = 0; d < cols(x); ++d) sum += double(x(t, d)) * double(W(d, c));
            y(t, c) = float(sum);
        }
    return y;
}

double gelu_by_formula(double z) {
    const double sqrt_2_over_pi = std::sqrt(2.0 / std::acos(-1.0));
    return 0.5 * z * (1.0 + std::tanh(sqrt_2_over_pi * (z + 0.044715 * z * z * z)));
}

Matrix feed_forward_by_loops(const FeedForward& f, const Matrix& x) {
    const std::size_t d_ff = cols(f.W_1), d_model = cols(f.W_2);
    Matrix y = Matrix::from_shape({rows(x), d_model});
    std::vector<double> hidden(d_ff);
    for (std::size_t i = 0; i < rows(x); ++i) {
        // 1. hidden = act(x_i · W_1 + b_1), kept in double
        for (std::size_t k = 0; k < d_ff; ++k) {
            double z = f.b_1(k);
            for (std::size_t j = 0; j < cols(x); ++j) z += double(x(i, j)) * double(f.W_1(j, k));
            hidden[k] = f.activation == Activation::relu ? std::max(0.0, z) : gelu_by_formula(z);
        }
        // 2. hidden · W_2 + b_2
        for (std::size_t j = 0; j < d_model; ++j) {
            double out = f.b_2(j);
            for (std::size_t k = 0; k < d_ff; ++k) out += hidden[k] * double(f.W_2(k, j));
            y(i, j) = float(out);
        }
    }
    return y;
}

MultiHeadByLoops multi_head_by_loops(const Matrix& x, const AttentionParams& p, std::size_t h) {
    MultiHeadByLoops r;
    // 1. the projections, then every head on its own columns
    r.Q = linear_by_loops(x, p.W_Q, p.b_Q);
    r.K = linear_by_loops(x, p.W_K, p.b_K);
    r.V = linear_by_loops(x, p.W_V, p.b_V);
    r.heads = heads_by_loops(r.Q, r.K, r.V, h, h);
    // 2. the heads side by side, mixed by W_O
    r.output = linear_by_loops(r.heads.output, p.W_O, p.b_O);
    double v_max = 0.0, column_max = 0.0;
    for (const float v : r.V) v_max = std::max(v_max, std::abs(double(v)));
    for (std::size_t d = 0; d < cols(p.W_O); ++d) {
        double column = 0.0;
        for (std::size_t c = 0; c < rows(p.W_O); ++c) column += std::abs(double(p.W_O(c, d)));
        column_max = std::max(column_max, column);
    }
    r.value_size = v_max * column_max;
    return r;
}

Matrix block_by_loops(const Matrix& X, const BlockParams& p, NormPlacement placement) {
    const auto ln = [](const Matrix& x, const LayerNormParams& params) {
        return layer_norm_by_loops(x, params.gamma, params.beta);
    };
    const auto mha = [&](const Matrix& x) { return multi_head_by_loops(x, p.attention, p.heads).output; };
    if (placement == NormPlacement::pre) {
        const Matrix r = X + mha(ln(X, p.ln1));        // the stream carries X through
        return r + feed_forward_by_loops(p.ffn, ln(r, p.ln2));
    }
    const Matrix r = ln(X + mha(X), p.ln1);            // the stream itself is normalised
    return ln(r + feed_forward_by_loops(p.ffn, r), p.ln2);
}
