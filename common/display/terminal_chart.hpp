// A chart drawn with text, for curves a learner should see without opening a
// picture: points on a grid of characters, one mark per series, either axis on
// a log scale (a power law is then a straight line).
//
//   1.09916 │••
//           │  ••••••
//   0.01106 │        ••••••••
//           │                •••••••
//   0.00004 │                       ••••••••••••
//           └──────────────────────────────────
//            step 0                    step 150
//
// The y axis is labelled at its top, middle and bottom rows; the x axis at the
// ticks given. A later series draws over an earlier one where they meet. With
// more than one series, a legend names each mark (on more lines when one would be wider than
// the chart), and a last line each mark drawn over another's ("drawn over another's place:
// T over M, K over M"): what the chart hides, said.
#pragma once

#include <functional>
#include <string>
#include <vector>

struct ChartSeries {
    std::string name;          // for the legend
    std::string mark;          // one character's text: "•", "M"
    std::vector<double> x, y;  // the points
};

struct ChartTick {
    double x;          // where, in the units of x
    std::string text;  // starts at that column (shifted left at the right edge)
};

struct ChartOptions {
    std::size_t width = 60;   // columns of the grid
    std::size_t height = 10;  // rows of the grid
    bool log_x = false, log_y = false;
    std::function<std::string(double)> y_text;  // the y labels
    std::size_t label_width = 10;               // y labels right-aligned in this many columns
    std::vector<ChartTick> ticks;               // the x labels under the axis
    std::string x_title;                        // after the ticks, e.g. "n (log scale)"
};

// The chart as lines of text, each ending in '\n'; empty when no point can be
// drawn (none given, or none positive on a log axis). Trailing spaces are cut.
std::string terminal_chart(const std::vector<ChartSeries>& series, const ChartOptions& options);
