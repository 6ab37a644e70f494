// A plain text table for measurements and explanations: columns of numbers
// right-aligned, columns of words left-aligned, a rule under the header.
//
//   d_k   var(q·k)   largest weight
//   ───   ────────   ──────────────
//     4      3.912            0.412
#pragma once

#include <cstdint>
#include <string>
#include <vector>

using TextRow = std::vector<std::string>;

// A table wider than `max_width` columns narrows its widest columns (words
// before numbers), cutting their cells with "…" (fit_width.hpp).
std::string format_table(const TextRow& header, const std::vector<TextRow>& body,
                         std::size_t max_width = std::string::npos);

// 2362368 → "2 362 368", the way the papers print parameter counts; right-aligned to `width`.
std::string grouped(std::uint64_t value, std::size_t width = 0);
