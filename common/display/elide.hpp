// Long lists shortened for a terminal, the way print.hpp shortens matrices:
// the first and last few items with "…" between.
//
//   join_elided({"t0", …, "t299"}, " ")   →  "t0 t1 t2 t3 t4 … t295 t296 t297 t298 t299"
//
//   for (std::size_t i : elided_indices(n)) {
//       if (i == elided) { fmt::print("…\n"); continue; }   // the gap, printed once
//       fmt::print("{}\n", line_for(i));
//   }
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

// The marker elided_indices() puts where items were left out.
constexpr std::size_t elided = std::numeric_limits<std::size_t>::max();

// 0 … n−1 when n ≤ max_items; else the first and last `edge_items` with the
// marker `elided` between them.
std::vector<std::size_t> elided_indices(std::size_t n, std::size_t max_items = 16, std::size_t edge_items = 5);

// The items joined by `separator`, elided like elided_indices() with "…".
std::string join_elided(const std::vector<std::string>& items, const std::string& separator,
                        std::size_t max_items = 16, std::size_t edge_items = 5);
