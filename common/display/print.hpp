// Printing a matrix the way the lessons show it:
//
//   scores = X · Xᵀ   (3 × 3)
//              the     cat     sat
//   the      1.000   0.200   0.100
//   cat      0.200   1.500   0.700
//   sat      0.100   0.700   1.200
//
// A title with the name, the formula and the shape; token labels on rows and
// columns; fixed decimals; numpy-style elision (first and last rows and
// columns, with ⋮ and …) for matrices too big for a terminal; and, on a colour
// terminal, heat shading of the cells with the viridis scale.
#pragma once

#include <string>

#include "common/numbers/matrix.hpp"

struct PrintStyle {
    int decimals = 3;          // digits after the point
    bool color = false;        // heat shading (ANSI true colour)
    std::size_t max_rows = 16; // more rows than this: show the first and last `edge_items`
    std::size_t max_cols = 12; // likewise for columns
    std::size_t edge_items = 5;
    std::size_t line_width = 100; // columns of the terminal: wider matrices show fewer columns
};

// "(4 × 3)"
std::string shape_text(const Matrix& m);

// Thousands with commas: with_commas(1189651) → "1,189,651".
std::string with_commas(std::size_t n);

// One number as the lessons print it, the one formatter of every number a lesson
// prints: fixed decimals, "inf"/"-inf"/"nan" spelled out, and never "-0.000" (a tiny
// negative rounds to a plain zero). format_number(0.1234f, 3) → "0.123".
std::string format_number(double value, int decimals);

// The whole block: title line, column labels, rows. Ends with a newline.
// Labels may be empty (then rows and columns are numbered from 0).
std::string format_matrix(const std::string& name, const std::string& formula, const Matrix& m,
                          const Labels& row_labels, const Labels& col_labels, const PrintStyle& style);
