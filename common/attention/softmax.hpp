// The numerically stable row softmax: weights(i, j) = exp(s_ij − max_j s_ij) / Σ_j exp(s_ij − max_j s_ij).
// Subtracting the row maximum changes nothing mathematically (it cancels in the
// fraction) but keeps every exp() at most 1, so float32 never overflows.
#pragma once

#include "common/numbers/matrix.hpp"

// scores (n × m) → weights (n × m), each row sums to 1. A row whose scores are
// all −inf (every key masked) has no weights to give: it becomes all zeros.
Matrix softmax_rows(const Matrix& scores);
