// Pictures as SVG text, for a web page or a browser: a heat map of a matrix
// (an attention map) and a line plot of curves (costs, losses).
//
//   heat map: the title "weights = softmax(scaled_scores)   (9 × 9)", token labels on
//             both axes, one square cell per entry coloured on the viridis scale of
//             common/display/colormap.hpp (the same scale as the terminal shading, from the
//             smallest to the largest finite value), the value in each cell where it
//             fits (and in every cell's tooltip), and a colour bar with the range.
//             Non-finite entries (a −inf mask) are grey and named in the legend.
//   plot:     one line per series, each with its own colour (Okabe–Ito, for
//             colour-blind readers), dash pattern and marker, a legend, and axes with
//             their labels; an axis can be logarithmic (powers of ten) for power laws.
//
// Both have an opaque white background, so they read the same on light and dark pages.
// The text is one element per line, so two pictures can be compared line by line.
#pragma once

#include <string>
#include <vector>

#include "common/numbers/matrix.hpp"

// The heat map of m. The title is "name = formula   (rows × cols)" (no " = formula"
// when formula is empty); values print with `decimals` digits like format_number.
// Labels may be empty (rows and columns are then numbered from 0).
std::string heat_map_svg(const std::string& name, const std::string& formula, const Matrix& m,
                         const Labels& row_labels, const Labels& col_labels, int decimals = 3);

// One curve of a plot: a method and its measurements.
struct Series {
    std::string label;      // the legend entry, e.g. "materialised n × n"
    std::vector<double> x;  // as many x as y
    std::vector<double> y;  // a point with a non-finite coordinate, or ≤ 0 on a log axis, is left out
    std::string mark = "";  // its character in a terminal chart (lesson.chart); empty: "•"
};

// One axis of a plot.
struct Axis {
    std::string label;  // what it measures, with its unit: "sequence length n (tokens)", "time (ms)"
    bool log = false;   // logarithmic (ticks at powers of ten): a power law is a straight line
};

// The plot of the series, one line each. Throws std::invalid_argument when there
// is no series or a series has different numbers of x and y.
std::string line_plot_svg(const std::string& title, const Axis& x, const Axis& y, const std::vector<Series>& series);
