// Lines that fit the terminal, whatever a learner's tokens and dimensions are
// called: the frame passes everything it prints through these (matrices elide
// their own columns, see print.hpp).
//
//   cut_to_width("a_very_long_token_name", 10)     → "a_very_lo…"
//   wrap_to_width("✓ a claim … (max error 2.4e-07, tolerance 1e-05)", 40, 2)
//     → "✓ a claim … (max error 2.4e-07,\n  tolerance 1e-05)"
//
// Widths are display columns (text_width.hpp): 猫 takes two, an accent none.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

// `s` when it fits `width` columns; else its longest prefix that fits with "…".
std::string cut_to_width(const std::string& s, std::size_t width);

// `s` with spaces before it (pad_left) or after it (pad_right) up to `width` columns.
std::string pad_left(const std::string& s, std::size_t width);
std::string pad_right(const std::string& s, std::size_t width);

// The label of row or column i, or i itself when the labels stop before it.
std::string label_or_index(const std::vector<std::string>& labels, std::size_t i);

// Every line of `text` wider than `width` broken at spaces into lines that fit
// (a word wider than a line is split); the lines after the first are indented
// like it, plus `hanging` spaces. Lines that fit are left as they are.
std::string wrap_to_width(const std::string& text, std::size_t width, std::size_t hanging = 0);
