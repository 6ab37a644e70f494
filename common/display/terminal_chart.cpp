#include "common/display/terminal_chart.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "common/display/fit_width.hpp"
#include "common/display/side_by_side.hpp"
#include "common/display/text_width.hpp"

namespace {

// Where a value falls on an axis of `cells` cells, 0 … cells − 1.
struct CellScale {
    bool log = false;
    double low = 0.0, high = 0.0;
    double at(double v) const { return log ? std::log10(v) : v; }
    double value(double t) const { return log ? std::pow(10.0, t) : t; }
    std::size_t cell(double v, std::size_t cells) const {
        const double span = std::max(high - low, 1e-9);
        return static_cast<std::size_t>(std::lround((at(v) - low) / span * double(cells - 1)));
    }
};

bool drawable(double x, double y, const ChartOptions& o) {
    return std::isfinite(x) && std::isfinite(y) && (!o.log_x || x > 0.0) && (!o.log_y || y > 0.0);
}

void cut_trailing_spaces(std::string& line) {
    while (!line.empty() && line.back() == ' ') line.pop_back();
}

}  // namespace

std::string terminal_chart(const std::vector<ChartSeries>& series, const ChartOptions& o) {
    CellScale sx{o.log_x, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
    CellScale sy{o.log_y, sx.low, sx.high};
    for (const ChartSeries& s : series)
        for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i)
            if (drawable(s.x[i], s.y[i], o)) {
                sx.low = std::min(sx.low, sx.at(s.x[i])), sx.high = std::max(sx.high, sx.at(s.x[i]));
                sy.low = std::min(sy.low, sy.at(s.y[i])), sy.high = std::max(sy.high, sy.at(s.y[i]));
            }
    if (sx.low > sx.high || o.width == 0 || o.height == 0) return "";

    // The grid, one string per cell, so that a mark may take several bytes ("•").
    std::vector<std::vector<std::string>> grid(o.height, std::vector<std::string>(o.width, " "));
    // and under each cell the series drawn there, so that a mark drawn over another is named
    std::vector<std::vector<std::vector<std::size_t>>> under(o.height, std::vector<std::vector<std::size_t>>(o.width));
    for (std::size_t k = 0; k < series.size(); ++k) {
        const ChartSeries& s = series[k];
        for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i)
            if (drawable(s.x[i], s.y[i], o)) {
                const std::size_t r = o.height - 1 - sy.cell(s.y[i], o.height), c = sx.cell(s.x[i], o.width);
                grid[r][c] = s.mark;
                std::vector<std::size_t>& here = under[r][c];
                if (std::find(here.begin(), here.end(), k) == here.end()) here.push_back(k);
            }
    }

    std::string out;
    const std::size_t middle = (o.height - 1) / 2;
    for (std::size_t r = 0; r < o.height; ++r) {
        const double t = sy.high - std::max(sy.high - sy.low, 1e-9) * double(r) / double(std::max<std::size_t>(o.height - 1, 1));
        const bool labelled = r == 0 || r == middle || r == o.height - 1;
        const std::string label = labelled && o.y_text ? o.y_text(sy.value(t)) : "";
        std::string line = fmt::format("{:>{}} │", label, o.label_width);
        for (const std::string& cell : grid[r]) line += cell;
        cut_trailing_spaces(line);
        out += line + "\n";
    }
    std::string axis;
    for (std::size_t c = 0; c < o.width; ++c) axis += "─";
    out += fmt::format("{:>{}} └{}\n", "", o.label_width, axis);

    // The ticks: each at its column, shifted left to end at the last column, never
    // over the tick before it.
    std::string ticks;
    std::size_t used = 0;  // columns of the tick line taken so far (after the margin)
    for (const ChartTick& tick : o.ticks) {
        if (!drawable(tick.x, sy.value(sy.low), o)) continue;
        const std::size_t length = visible_width(tick.text);
        std::size_t start = sx.cell(tick.x, o.width);
        if (start + length > o.width) start = o.width > length ? o.width - length : 0;
        if (used > 0 && start < used + 1) start = used + 1;
        ticks += std::string(start - used, ' ') + tick.text;
        used = start + length;
    }
    if (!o.x_title.empty()) ticks += (ticks.empty() ? "" : "  ") + o.x_title;
    if (!ticks.empty()) out += std::string(o.label_width + 2, ' ') + ticks + "\n";
    if (series.size() > 1) {  // the legend, on as many lines as the chart's width needs
        const std::size_t width = o.label_width + 2 + o.width;
        std::string legend(o.label_width, ' ');
        for (const ChartSeries& s : series) {
            const std::string entry = fmt::format("  {} {}", s.mark, s.name);
            if (legend.size() > o.label_width && display_width(legend) + display_width(entry) > width)
                out += legend + "\n", legend = std::string(o.label_width, ' ');
            legend += entry;
        }
        out += legend + "\n";
    }
    // Marks that fell on one place: the last drawn shows, the others are named ("T over M").
    std::vector<std::pair<std::size_t, std::size_t>> hidden;  // (shown, hidden), in the series' order
    for (const auto& row : under)
        for (const std::vector<std::size_t>& here : row)
            for (std::size_t j = 0; j + 1 < here.size(); ++j) {
                const std::pair<std::size_t, std::size_t> pair{here.back(), here[j]};
                if (series[pair.first].mark != series[pair.second].mark &&
                    std::find(hidden.begin(), hidden.end(), pair) == hidden.end())
                    hidden.push_back(pair);
            }
    std::sort(hidden.begin(), hidden.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second < b.second : a.first < b.first;
    });
    if (!hidden.empty()) {
        std::string line = "drawn over another's place:";
        for (std::size_t h = 0; h < hidden.size(); ++h)
            line += fmt::format("{} {} over {}", h == 0 ? "" : ",", series[hidden[h].first].mark, series[hidden[h].second].mark);
        out += wrap_to_width(std::string(o.label_width + 2, ' ') + line, o.label_width + 2 + o.width) + "\n";
    }
    return out;
}
