// An attention-only transformer: embeddings, causal attention layers with
// residual connections, an unembedding and next-token cross-entropy; its
// forward and backward passes, by hand, in float (training) or double (the
// gradient check).
//
//   X₀ = E[tokens] + P                                     (n × d)   embed + positions
//   X_{l+1} = X_l + Σ_h A_h · (X_l W_V^h) · W_O^h          (n × d)   layer l, heads h
//     A_h = softmax_causal(X_l W_Q^h · (X_l W_K^h)ᵀ / √d_h) (n × n)
//   logits = X_L · U,  p = softmax_rows(logits)            (n × V)
//   loss = −(1/N) Σ_{sequences} Σ_{i<n−1} log p_i[token_{i+1}]   N = B·(n−1) predictions
//
// Backward (the chain rule from the loss down; "d" names ∂loss/∂ of that matrix):
//   d_logits = (p − onehot(next token)) / N   (0 in the last row)   (n × V)
//   dU = X_Lᵀ · d_logits,  dX_L = d_logits · Uᵀ
//   per layer, from the last: dX_l = dX_{l+1} (the residual) + Σ_h, with G = dX_{l+1}:
//     dW_O = Zᵀ G,  dZ = G W_Oᵀ                      Z = A V (n × d_h)
//     dA = dZ Vᵀ,  dV = Aᵀ dZ
//     dS = A ⊙ (dA − rowsum(dA ⊙ A)) / √d_h          (hidden keys: A = 0, so dS = 0)
//     dQ = dS K,  dK = dSᵀ Q
//     dW_Q = X_lᵀ dQ, dW_K = X_lᵀ dK, dW_V = X_lᵀ dV
//     dX_l += dQ W_Qᵀ + dK W_Kᵀ + dV W_Vᵀ
//   dE[token] += dX₀ row,  dP[i] += dX₀ row i (when positions are learned)
//
// Shapes: V vocabulary, n tokens per sequence, d = d_model, h heads of width
// d_h = d / h per layer, B sequences in a batch stacked as (B·n × d).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <xtensor/xtensor.hpp>

#include "common/math/matrix.hpp"

template <class T>
using Mat = xt::xtensor<T, 2>;
using Tokens = std::vector<std::size_t>;  // one sequence: token ids in [0, V)

template <class T>
struct AttentionOnlyModel {
    std::size_t layers = 0, heads = 0;
    bool learned_positions = true;     // false: P stays 0 (no positional information)
    Mat<T> E;                          // (V × d)   token embeddings
    Mat<T> P;                          // (n × d)   learned positions
    std::vector<Mat<T>> W_Q, W_K, W_V; // [l·heads + h] (d × d_h)
    std::vector<Mat<T>> W_O;           // [l·heads + h] (d_h × d)
    Mat<T> U;                          // (d × V)   unembedding
};

// Every intermediate of a forward pass over a batch, for the backward pass.
template <class T>
struct ModelForward {
    std::size_t batch = 0, length = 0;
    std::vector<Mat<T>> X;         // [l] (B·n × d) residual stream before layer l; X[layers] the last
    std::vector<Mat<T>> Q, K, V;   // [l·heads + h] (B·n × d_h)
    std::vector<Mat<T>> weights;   // [l·heads + h] (B·n × n): row b·n + i = query i of sequence b
    std::vector<Mat<T>> Z;         // [l·heads + h] (B·n × d_h) weights · V, per sequence
    Mat<T> logits, probs;          // (B·n × V)
};

// A model of random numbers (normal: std 1 for E and P, 1/√d for W_Q, W_K, W_V and
// U, 1/√d_h for W_O), the same for a seed on every machine.
AttentionOnlyModel<float> random_model(std::size_t vocabulary, std::size_t length, std::size_t d_model,
                                       std::size_t layers, std::size_t heads, bool learned_positions,
                                       std::uint64_t seed);

// The same numbers in double (for the gradient check).
AttentionOnlyModel<double> in_double(const AttentionOnlyModel<float>& m);

// Every parameter matrix, in a fixed order: E, P (when learned), U, then per
// layer and head W_Q, W_K, W_V, W_O.
template <class T>
std::vector<Mat<T>*> parameters(AttentionOnlyModel<T>& m);

// The forward pass; `ablated[l·heads + h]` true sets that head's output to 0.
template <class T>
ModelForward<T> model_forward(const AttentionOnlyModel<T>& m, const std::vector<Tokens>& batch,
                              const std::vector<bool>& ablated = {});

// −log softmax(logits row r)[next], in double from the logits (log-sum-exp): finite and
// exact where a probability in float would underflow to 0.
template <class T>
double token_loss(const Mat<T>& logits, std::size_t r, std::size_t next);

// The mean next-token cross-entropy (summed in double); fills d_logits
// (B·n × V) when given.
template <class T>
double next_token_loss(const ModelForward<T>& f, const std::vector<Tokens>& batch, Mat<T>* d_logits = nullptr);

// The gradient of the loss with respect to every parameter, in the model's shape.
template <class T>
AttentionOnlyModel<T> model_backward(const AttentionOnlyModel<T>& m, const std::vector<Tokens>& batch,
                                     const ModelForward<T>& f, const Mat<T>& d_logits,
                                     const std::vector<bool>& ablated = {});
