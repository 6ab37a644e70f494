// Reordering a sequence: the rows of a matrix and their labels.
//
//   order = {2, 0, 1}:  new row 0 = old row 2, new row 1 = old row 0, new row 2 = old row 1
//
// Attention's symmetries are statements about reordering: without positions,
// self-attention is permutation-equivariant (permute the tokens, and the output
// rows are permuted the same way); the keys and values of one query form a set
// (permute them together, and the query's output does not change).
#pragma once

#include <cstddef>
#include <vector>

#include "common/numbers/matrix.hpp"

using Order = std::vector<std::size_t>;  // a permutation of 0 … count−1

// Row i of the result is row order[i] of m. Throws std::invalid_argument unless
// order is a permutation of 0 … rows(m)−1.
Matrix permute_rows(const Matrix& m, const Order& order);
// Column j of the result is column order[j] of m.
Matrix permute_columns(const Matrix& m, const Order& order);
// Label i of the result is labels[order[i]].
Labels permute_labels(const Labels& labels, const Order& order);

// n−1, n−2, …, 0
Order reversal(std::size_t n);
// Whether order holds each of 0 … n−1 exactly once.
bool is_permutation_of(const Order& order, std::size_t n);
