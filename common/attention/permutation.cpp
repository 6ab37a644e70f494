#include "common/attention/permutation.hpp"

#include <stdexcept>

#include "common/numbers/input_error.hpp"

bool is_permutation_of(const Order& order, std::size_t n) {
    if (order.size() != n) return false;
    std::vector<bool> seen(n, false);
    for (const std::size_t i : order) {
        if (i >= n || seen[i]) return false;
        seen[i] = true;
    }
    return true;
}

namespace {
void require_permutation(const Order& order, std::size_t n) {
    if (!is_permutation_of(order, n))
        throw std::invalid_argument(describe("the order is not a permutation of 0 … ", n == 0 ? 0 : n - 1));
}
}  // namespace

Matrix permute_rows(const Matrix& m, const Order& order) {
    require_permutation(order, rows(m));
    Matrix out = Matrix::from_shape(m.shape());
    for (std::size_t i = 0; i < rows(m); ++i)
        for (std::size_t j = 0; j < cols(m); ++j) out(i, j) = m(order[i], j);
    return out;
}

Matrix permute_columns(const Matrix& m, const Order& order) {
    require_permutation(order, cols(m));
    Matrix out = Matrix::from_shape(m.shape());
    for (std::size_t i = 0; i < rows(m); ++i)
        for (std::size_t j = 0; j < cols(m); ++j) out(i, j) = m(i, order[j]);
    return out;
}

Labels permute_labels(const Labels& labels, const Order& order) {
    require_permutation(order, labels.size());
    Labels out;
    for (const std::size_t i : order) out.push_back(labels[i]);
    return out;
}

Order reversal(std::size_t n) {
    Order order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = n - 1 - i;
    return order;
}
