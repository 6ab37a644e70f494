// The backward pass of the row softmax written straight from its Jacobian, in double: the
// reference a float32 softmax backward is compared with. For one row p = softmax(s),
//
//   ∂p_j/∂s_k = p_j (δ_jk − p_k),   so   ds_k = Σ_j dp_j · p_j (δ_jk − p_k)
//
// one sum per entry, the Jacobian never simplified (the fast form, p_k (dp_k − Σ_j dp_j p_j),
// is what it checks).
#pragma once

#include "common/numbers/matrix.hpp"

// P (n × m) the weights, rows softmax(s); d_P (n × m) the gradient of the loss with respect
// to them. Returns d_S (n × m), the gradient with respect to the scores s.
Matrix softmax_backward_by_jacobian(const Matrix& P, const Matrix& d_P);
