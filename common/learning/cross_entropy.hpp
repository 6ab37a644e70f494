// The loss of a next-token prediction, which both models train on (chapter 16's and 22's):
//
//   loss = −log softmax(logits row r)[next] = log Σ_v e^{l_v} − l_next
//        = m + log Σ_v e^{l_v − m} − l_next,   m = max_v l_v   (log-sum-exp: no overflow)
//
// in double from the logits: finite and exact where a probability in float would underflow to 0.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "common/numbers/matrix.hpp"

template <class T>
double token_loss(const Mat<T>& logits, std::size_t r, std::size_t next) {
    double largest = double(logits(r, 0)), sum = 0.0;
    for (std::size_t v = 1; v < cols(logits); ++v) largest = std::max(largest, double(logits(r, v)));
    for (std::size_t v = 0; v < cols(logits); ++v) sum += std::exp(double(logits(r, v)) - largest);
    return largest + std::log(sum) - double(logits(r, next));
}
