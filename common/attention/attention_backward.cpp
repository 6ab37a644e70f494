#include "common/attention/attention_backward.hpp"

#include <cmath>

#include <xtensor/xmanipulation.hpp>
#include <xtensor/xmath.hpp>

#include "common/attention/attention.hpp"
#include "common/attention/mask.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/matmul.hpp"

AttentionForward attention_forward(const Matrix& X, const Matrix& W_Q, const Matrix& W_K, const Matrix& W_V,
                                   const Matrix& mask) {
    if (cols(W_Q) != cols(W_K))
        throw InputError(describe("attention: W_Q has ", cols(W_Q), " columns but W_K has ", cols(W_K)));
    AttentionForward f;
    f.Q = matmul(X, W_Q);  // (n × d_k)
    f.K = matmul(X, W_K);  // (n × d_k)
    f.V = matmul(X, W_V);  // (n × d_v)
    if (mask.size() == 0) {
        AttentionSteps s = scaled_dot_product_attention(f.Q, f.K, f.V);
        f.scores = std::move(s.scores);
        f.scaled_scores = std::move(s.scaled_scores);
        f.weights = std::move(s.weights);
        f.output = std::move(s.output);
    } else {
        MaskedAttentionSteps s = masked_attention(f.Q, f.K, f.V, mask);
        f.scores = std::move(s.scores);
        f.scaled_scores = std::move(s.masked_scores);
        f.weights = std::move(s.weights);
        f.output = std::move(s.output);
    }
    return f;
}

Matrix softmax_rows_backward(const Matrix& weights, const Matrix& d_weights) {
    // For one row p = softmax(s): ∂p_j/∂s_k = p_j (δ_jk − p_k), so
    // ds_k = Σ_j dp_j p_j (δ_jk − p_k) = p_k (dp_k − Σ_j dp_j p_j): every row at once
    // (chapter 11 writes the same line as a loop, row by row).
    // The row sums are stored before they are used (a lazy keep_dims reducer broadcasts
    // wrongly in xtensor 0.24).
    const Matrix row_dot = xt::sum(d_weights * weights, {1}, xt::keep_dims | xt::evaluation_strategy::immediate);  // (n × 1)
    return weights * (d_weights - row_dot);  // (n × m), 0 where a key is masked (p = 0)
}

AttentionGradients attention_backward(const Matrix& X, const Matrix& W_Q, const Matrix& W_K, const Matrix& W_V,
                                      const AttentionForward& f, const Matrix& d_output,
                                      SoftmaxBackward softmax_backward) {
    if (d_output.shape() != f.output.shape())
        throw InputError(describe("attention_backward: d_output is (", rows(d_output), " × ", cols(d_output), ") but output is (", rows(f.output), " × ", cols(f.output), ")"));
    AttentionGradients g;
    g.d_output = d_output;  // (n × d_v)

    // forward: output = weights · V
    g.d_weights = matmul_transposed(d_output, f.V);  // (n × d_v) · (d_v × n) → (n × n)
    g.d_V = matmul(transposed(f.weights), d_output);  // (n × n) · (n × d_v) → (n × d_v)

    // forward: weights = softmax_rows(scaled_scores)
    g.d_scaled_scores = softmax_backward(f.weights, g.d_weights);  // (n × n)

    // forward: scaled_scores = scores / √d_k
    const float scale = 1.0f / std::sqrt(static_cast<float>(cols(f.K)));
    g.d_scores = g.d_scaled_scores * scale;  // (n × n)

    // forward: scores = Q · Kᵀ
    g.d_Q = matmul(g.d_scores, f.K);               // (n × n) · (n × d_k) → (n × d_k)
    g.d_K = matmul(transposed(g.d_scores), f.Q);   // (n × n) · (n × d_k) → (n × d_k)

    // forward: Q = X · W_Q, K = X · W_K, V = X · W_V
    const Matrix Xt = transposed(X);  // (d_model × n)
    g.d_W_Q = matmul(Xt, g.d_Q);      // (d_model × d_k)
    g.d_W_K = matmul(Xt, g.d_K);      // (d_model × d_k)
    g.d_W_V = matmul(Xt, g.d_V);      // (d_model × d_v)
    // X feeds all three projections, so its gradient is the sum of three paths.
    g.d_X = matmul_transposed(g.d_Q, W_Q) + matmul_transposed(g.d_K, W_K) + matmul_transposed(g.d_V, W_V);
    return g;
}
