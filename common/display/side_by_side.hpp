// Printed matrices next to each other, so a learner can compare them by eye:
//
//   head0_weights = …   (3 × 3)      head1_weights = …   (3 × 3)
//          the   cat   sat                  the   cat   sat
//   the  0.412 0.301 0.287           the  0.198 0.505 0.297
//
// Colour escapes (ESC [ … m) take no columns, so shaded blocks line up too.
#pragma once

#include <string>
#include <vector>

// The terminal columns a printed line takes, not counting colour escapes.
std::size_t visible_width(const std::string& line);

// The blocks (each a format_matrix() text) in rows of as many as fit in `width`
// columns, four spaces apart; each row of blocks starts with an empty line.
std::string side_by_side(const std::vector<std::string>& blocks, std::size_t width);
