// The layers a GPT is made of (gpt_model.hpp), each with its backward pass, in float or double,
// every product through fixed_order_product.hpp (the same digits on every machine):
//
//   linear       y = x · Wᵀ + b                 x (N × in), W (out × in) as nn.Linear, b (1 × out)
//                dW = dyᵀ · x,  db = Σ_rows dy,  dx = dy · W
//   layer norm   y = γ ⊙ x̂ + β, x̂ = (x − μ) · r, r = 1/√(σ² + ε), row by row (layer_norm.hpp)
//                dγ = Σ_rows dy ⊙ x̂,  dβ = Σ_rows dy,
//                dx = r · (g − mean(g) − x̂ · mean(g ⊙ x̂)),  g = dy ⊙ γ   (each row's means)
//   GELU         exact, z·Φ(z), entry by entry (feed_forward.hpp): dz = dy ⊙ GELU′(z); in float
//                with erf as PyTorch's vectorised CPU kernel computes it (gpt_layers.cpp)
//
// Sums over rows (db, dγ, dβ) add the rows in order, 0, 1, 2, …; a row's sums (μ, σ², the means
// of the backward pass) as eight running sums, then those in a fixed tree (gpt_layers.cpp).
#pragma once

#include <cstddef>

#include "common/numbers/matrix.hpp"  // Mat<T>, Tokens

namespace gpt_layers {

// m of shape (rows × cols): reallocated only when it had another shape (its numbers are then unset).
template <class T>
void reshape_to(Mat<T>& m, std::size_t rows, std::size_t cols) {
    if (m.dimension() != 2 || m.shape(0) != rows || m.shape(1) != cols) m = Mat<T>::from_shape({rows, cols});
}

// y = x · Wᵀ + b (N × out); y is reshaped when it does not fit.
template <class T>
void linear(const Mat<T>& x, const Mat<T>& W, const Mat<T>& b, Mat<T>& y);

// dW = dyᵀ x (out × in), db = Σ_rows dy (1 × out), written; dx = dy W (N × in) written when
// given, or added to *dx_add when that is given instead.
template <class T>
void linear_backward(const Mat<T>& x, const Mat<T>& W, const Mat<T>& dy, Mat<T>& dW, Mat<T>& db, Mat<T>* dx,
                     Mat<T>* dx_add = nullptr);

// y = LN(x) with γ, β (1 × d); stats (N × 2) each row's μ and r = 1/√(σ² + ε), ε = 1e-5.
template <class T>
void layer_norm(const Mat<T>& x, const Mat<T>& gamma, const Mat<T>& beta, Mat<T>& y, Mat<T>& stats);

// dγ, dβ (1 × d) written; the gradient of x added to dx (the residual stream's, which holds
// what passed by the layer).
template <class T>
void layer_norm_backward(const Mat<T>& x, const Mat<T>& stats, const Mat<T>& gamma, const Mat<T>& dy,
                         Mat<T>& d_gamma, Mat<T>& d_beta, Mat<T>& dx);

// y = GELU(z) = z Φ(z), entry by entry; Φ(z) into *cdf when given (the backward pass reads it).
template <class T>
void gelu(const Mat<T>& z, Mat<T>& y, Mat<T>* cdf = nullptr);

// dz = dy ⊙ GELU′(z), GELU′(z) = Φ(z) + z φ(z), from Φ(z) as gelu kept it; written over dy.
template <class T>
void gelu_backward(const Mat<T>& z, const Mat<T>& cdf, Mat<T>& dy);

// x += a, entry by entry.
template <class T>
void add_into(Mat<T>& x, const Mat<T>& a);

// y = x + a, entry by entry (y reshaped when it does not fit).
template <class T>
void sum_into(const Mat<T>& x, const Mat<T>& a, Mat<T>& y);

}  // namespace gpt_layers
