// The text chart of chapters 10 and 11: points land in the cells their scales
// say, a power law is a straight line on log axes, labels and ticks sit where
// they should, and nothing is drawn from nothing.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/display/terminal_chart.hpp"
#include "common/display/text_width.hpp"

namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

// The grid part of a line: what follows "│".
std::string grid_of(const std::string& line) {
    const std::string bar = "│";
    const auto at = line.find(bar);
    return at == std::string::npos ? "" : line.substr(at + bar.size());
}

}  // namespace

TEST_CASE("terminal chart: a straight line on linear axes goes corner to corner") {
    ChartOptions o;
    o.width = 5, o.height = 5, o.label_width = 3;
    o.y_text = [](double v) { return fmt::format("{:g}", v); };
    const std::string chart = terminal_chart({{"line", "x", {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}}}, o);
    const auto lines = lines_of(chart);
    REQUIRE(lines.size() == 6);  // 5 rows and the axis, no ticks, no legend for one series
    CHECK(grid_of(lines[0]) == "    x");
    CHECK(grid_of(lines[2]) == "  x");
    CHECK(grid_of(lines[4]) == "x");
    CHECK(lines[0].rfind("  4 │", 0) == 0);  // top, middle and bottom rows are labelled
    CHECK(lines[2].rfind("  2 │", 0) == 0);
    CHECK(lines[4].rfind("  0 │", 0) == 0);
    CHECK(lines[1].rfind("    │", 0) == 0);
    for (const std::string& line : lines) CHECK(line.back() != ' ');  // trailing spaces cut
}

// The text with every run of spaces and line ends as one space: a wrapped line read whole.
std::string flat(const std::string& text) {
    std::string out;
    for (const char c : text)
        if (c != ' ' && c != '\n') out += c;
        else if (!out.empty() && out.back() != ' ') out += ' ';
    return out;
}

TEST_CASE("terminal chart: n² on log–log axes is a straight line, as steep as its exponent") {
    ChartOptions o;
    o.width = 9, o.height = 9, o.log_x = true, o.log_y = true;
    std::vector<double> n, n2;
    for (double x = 1; x <= 256; x *= 2) n.push_back(x), n2.push_back(x * x);
    const auto lines = lines_of(terminal_chart({{"n", "W", n, n}, {"n²", "M", n, n2}}, o));
    REQUIRE(lines.size() >= 10);
    // n² (drawn last, over n where they meet) spans the whole height: one mark per row, one column per doubling.
    for (std::size_t r = 0; r < 9; ++r) CHECK(grid_of(lines[r]).find('M') == 8 - r);
    // n rises half as fast: it reaches the middle row at the right edge.
    CHECK(grid_of(lines[4]).rfind('W') == 8);
    // a legend for two series, and, last, what the chart hides: n and n² meet at n = 1, where
    // M is drawn over W (both read with their wrapped lines joined)
    std::string text;
    for (const std::string& line : lines) text += line + "\n";
    const std::string whole = flat(text);
    CHECK(whole.find("M n²") != std::string::npos);
    CHECK(whole.find("W n") != std::string::npos);
    CHECK(whole.find("W n") < whole.find("drawn over"));
    CHECK(whole.find("drawn over another's place: M over W") != std::string::npos);
}

TEST_CASE("terminal chart: marks that never meet are not said to hide each other") {
    ChartOptions o;
    o.width = 10, o.height = 5;
    const std::string apart = terminal_chart({{"a", "A", {0, 1}, {0, 0}}, {"b", "B", {0, 1}, {1, 1}}}, o);
    CHECK(apart.find("drawn over") == std::string::npos);
    // the same mark in one cell twice, and one series over itself, hide nothing either
    const std::string same = terminal_chart({{"a", "A", {0, 0}, {0, 0}}, {"b", "A", {0}, {0}}}, o);
    CHECK(same.find("drawn over") == std::string::npos);
    // three marks on one place: the last shows, both others are named, in the series' order
    const std::string three = terminal_chart({{"a", "A", {0, 1}, {0, 1}}, {"b", "B", {0}, {0}}, {"c", "C", {0}, {0}}}, o);
    CHECK(flat(three).find("drawn over another's place: C over A, C over B") != std::string::npos);
}

TEST_CASE("terminal chart: ticks start at their column and shift left at the right edge") {
    ChartOptions o;
    o.width = 20, o.height = 3, o.label_width = 2;
    o.ticks = {{0.0, "step 0"}, {10.0, "step 10"}};
    o.x_title = "steps";
    const auto lines = lines_of(terminal_chart({{"loss", "•", {0, 5, 10}, {3, 2, 1}}}, o));
    REQUIRE(lines.size() == 5);
    CHECK(lines[3] == "   └" + [] { std::string a; for (int i = 0; i < 20; ++i) a += "─"; return a; }());
    CHECK(lines[4] == "    step 0" + std::string(7, ' ') + "step 10  steps");  // "step 10" ends at column 19
    CHECK(grid_of(lines[0]) == "•");
    CHECK(grid_of(lines[2]) == std::string(19, ' ') + "•");
}

TEST_CASE("terminal chart: nothing drawable, nothing drawn") {
    ChartOptions o;
    o.log_y = true;
    CHECK(terminal_chart({}, o).empty());
    CHECK(terminal_chart({{"zero", "z", {1, 2}, {0, -1}}}, o).empty());  // no positive y on a log axis
}

TEST_CASE("terminal chart: a legend wider than the chart goes on as many lines as it needs, none wider") {
    ChartOptions o;
    o.width = 20, o.height = 3, o.label_width = 2;
    std::vector<ChartSeries> series;
    for (const char* name : {"first", "second", "third", "fourth", "fifth"}) series.push_back({name, "x", {1.0}, {1.0}});
    const auto lines = lines_of(terminal_chart(series, o));
    REQUIRE(lines.size() == 4 + 3);  // 3 rows, the axis, and the legend on 3 lines
    std::string legend;
    for (std::size_t i = 4; i < lines.size(); ++i) {
        CHECK(display_width(lines[i]) <= 2 + 2 + 20);
        CHECK(lines[i].rfind("    x ", 0) == 0);  // each line starts under the axis with a mark
        legend += lines[i];
    }
    for (const char* name : {"first", "second", "third", "fourth", "fifth"}) CHECK(legend.find(name) != std::string::npos);
}
