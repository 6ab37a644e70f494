// The row softmax written out as loops in double, straight from the formula: the reference
// for the float32 softmax of common/attention/softmax.hpp and of the chapters' own loops.
//
//   m_i = max_j s_ij
//   softmax(s)_ij = exp(s_ij − m_i) / Σ_j' exp(s_ij' − m_i)             (n × m) → (n × m)
//
// Subtracting m_i changes no weight (exp(−m_i) cancels above and below the bar) and keeps
// every exp() in (0, 1]. A row whose scores are all −∞ (every key hidden) has no weights
// to normalise: it becomes 0, the convention of common/attention/softmax.hpp. A NaN score
// makes its row NaN, so that a comparison sees it.
#pragma once

#include "common/numbers/matrix.hpp"

// scores (n × m) → weights (n × m), summed in double and rounded to float at the end.
Matrix softmax_by_loops(const Matrix& scores);
