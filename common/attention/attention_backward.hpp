// Single-head self-attention, forward and backward, so that W_Q, W_K and W_V
// can be learned by gradient descent.
//
//   forward                                   backward (chain rule, last line first)
//   Q = X · W_Q              (n × d_k)        dW_Q = Xᵀ · dQ
//   K = X · W_K              (n × d_k)        dW_K = Xᵀ · dK
//   V = X · W_V              (n × d_v)        dW_V = Xᵀ · dV
//   scores = Q · Kᵀ          (n × n)          dQ = dscores · K,  dK = dscoresᵀ · Q
//   scaled = scores / √d_k   (n × n)          dscores = dscaled / √d_k
//   P = softmax_rows(scaled) (n × n)          dscaled = P ⊙ (dP − rowsum(dP ⊙ P))
//   output = P · V           (n × d_v)        dP = doutput · Vᵀ,  dV = Pᵀ · doutput
//
// A "d" in front of a name is the gradient of the loss with respect to that
// matrix, and has its shape. P is the attention weights. An optional mask
// (1 = visible, 0 = hidden, see mask.hpp) hides keys before the softmax: a
// hidden weight is exactly 0, so its gradient through the softmax is 0 too.
#pragma once

#include "common/numbers/matrix.hpp"

// Every intermediate of the forward pass: the backward pass reads them.
struct AttentionForward {
    Matrix Q;              // (n × d_k)  X · W_Q
    Matrix K;              // (n × d_k)  X · W_K
    Matrix V;              // (n × d_v)  X · W_V
    Matrix scores;         // (n × n)    Q · Kᵀ
    Matrix scaled_scores;  // (n × n)    scores / √d_k (−inf where the mask hides a key)
    Matrix weights;        // (n × n)    softmax of each row
    Matrix output;         // (n × d_v)  weights · V
};

// Every gradient of the backward pass, in the order it is computed.
struct AttentionGradients {
    Matrix d_output;         // (n × d_v)      given: ∂loss/∂output
    Matrix d_weights;        // (n × n)        d_output · Vᵀ
    Matrix d_V;              // (n × d_v)      weightsᵀ · d_output
    Matrix d_scaled_scores;  // (n × n)        weights ⊙ (d_weights − rowsum(d_weights ⊙ weights))
    Matrix d_scores;         // (n × n)        d_scaled_scores / √d_k
    Matrix d_Q;              // (n × d_k)      d_scores · K
    Matrix d_K;              // (n × d_k)      d_scoresᵀ · Q
    Matrix d_W_Q;            // (d_model × d_k) Xᵀ · d_Q
    Matrix d_W_K;            // (d_model × d_k) Xᵀ · d_K
    Matrix d_W_V;            // (d_model × d_v) Xᵀ · d_V
    Matrix d_X;              // (n × d_model)  d_Q · W_Qᵀ + d_K · W_Kᵀ + d_V · W_Vᵀ
};

// X (n × d_model), W_Q, W_K (d_model × d_k), W_V (d_model × d_v); mask (n × n)
// or an empty matrix for no mask.
AttentionForward attention_forward(const Matrix& X, const Matrix& W_Q, const Matrix& W_K, const Matrix& W_V,
                                   const Matrix& mask = Matrix());

// The backward pass of the row softmax alone, P = softmax_rows(S):
// dS = P ⊙ (dP − rowsum(dP ⊙ P)). (n × m), (n × m) → (n × m)
Matrix softmax_rows_backward(const Matrix& weights, const Matrix& d_weights);

// A backward pass of the row softmax: (weights, d_weights) → d_scaled_scores.
using SoftmaxBackward = Matrix (*)(const Matrix& weights, const Matrix& d_weights);

// The gradients of a loss L(output) with respect to everything above, given
// d_output = ∂L/∂output and the forward pass that produced `output`. The softmax
// line is softmax_rows_backward unless another is given (chapter 11 writes its own).
AttentionGradients attention_backward(const Matrix& X, const Matrix& W_Q, const Matrix& W_K, const Matrix& W_V,
                                      const AttentionForward& forward, const Matrix& d_output,
                                      SoftmaxBackward softmax_backward = softmax_rows_backward);
