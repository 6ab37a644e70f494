#include "common/reference/softmax_backward_by_jacobian.hpp"

Matrix softmax_backward_by_jacobian(const Matrix& P, const Matrix& d_P) {
    Matrix d_S = Matrix::from_shape({rows(P), cols(P)});
    for (std::size_t i = 0; i < rows(P); ++i)
        for (std::size_t k = 0; k < cols(P); ++k) {
            double ds = 0.0;  // Σ_j dp_j · ∂p_j/∂s_k
            for (std::size_t j = 0; j < cols(P); ++j)
                ds += double(d_P(i, j)) * double(P(i, j)) * ((j == k ? 1.0 : 0.0) - double(P(i, k)));
            d_S(i, k) = float(ds);
        }
    return d_S;
}
