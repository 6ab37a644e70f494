// Grading a learner's mathematics: each matrix the lesson keeps is compared with
// the one the chapter's own math.cpp computed (saved as <name>.npy), and the first
// wrong entry is named with its token labels and both values:
//
//   weights[cat, sat]: expected 0.412, got 0.377
//
// followed, where the pattern is recognisable, by its likely cause ("every row of
// the columns sums to 1: the softmax ran over the wrong axis").
#pragma once

#include <string>

#include "common/numbers/matrix.hpp"

// Empty when `got` equals `expected` within float rounding (relative to the size
// of the numbers); otherwise one or two lines saying what differs and why it may.
std::string describe_difference(const std::string& name, const Matrix& got, const Matrix& expected,
                                const Labels& row_labels, const Labels& col_labels);
