// A matrix as a heat map of text: one character per entry, so that a 32 × 32
// attention map fits a terminal whole and a stripe in it can be seen.
//
//   weights = head L2H0   (6 × 6)
//            0
//            012345
//     0  a   #
//     1  b   #·
//     2  c   ·9·
//     3  a   ·3·6
//     4  b   ··9··
//     5  c   ···9··
//   a cell is the nearest tenth of the way from 0.000 to 1.000: · 0, 1 … 9 tenths, # all the way;
//   blank: exactly 0
//
// Rows carry their index and label; columns their index, the tens digit above
// the units digit. Column labels do not fit one character: they stay in the
// --dump file. A matrix wider than the line keeps its first and last columns
// and says which ones it left out; more than 64 rows keep the first and last 32.
#pragma once

#include <cstddef>
#include <string>

#include "common/numbers/matrix.hpp"

// The whole block, ending with a newline; `decimals` for the ends of the scale.
std::string heat_map_text(const std::string& name, const std::string& formula, const Matrix& m,
                          const Labels& row_labels, int decimals, std::size_t line_width);
