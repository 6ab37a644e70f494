// Chapter 09 · the self-checks: each claim of the lesson against something computed
// another way (the paper's formula in double, the permutation of the rows, attention
// as loops in double from common/reference, closed forms).
#pragma once

#include "chapters/09_positional_encoding/math.hpp"
#include "common/lesson/self_check.hpp"

// `word` is the followed token; `order` sentence B's order of A's rows.
void check_positions(SelfChecks& check, const WithAndWithoutPositions& r, const Order& order, const std::string& word,
                     std::size_t max_pos);
