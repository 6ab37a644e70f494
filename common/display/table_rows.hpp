// A table's body, one row per index, for lesson.table (text_table.hpp's TextRow):
//
//   lesson.table({"rank", "pairs"}, rows_for(P, [&](std::size_t r) {
//       return TextRow{rank_name(r), grouped(pairs[r])};
//   }));
#pragma once

#include <cstddef>
#include <vector>

#include "common/display/text_table.hpp"

// row_of(0), row_of(1), … row_of(count − 1), in that order.
template <class RowOf>
std::vector<TextRow> rows_for(std::size_t count, RowOf row_of) {
    std::vector<TextRow> body;
    body.reserve(count);
    for (std::size_t i = 0; i < count; ++i) body.push_back(row_of(i));
    return body;
}
