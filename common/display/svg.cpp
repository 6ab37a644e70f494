#include "common/display/svg.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "common/display/colormap.hpp"
#include "common/display/fit_width.hpp"
#include "common/display/print.hpp"
#include "common/display/text_width.hpp"

namespace {

constexpr double margin = 16.0;
constexpr double title_size = 15.0;
constexpr double label_size = 13.0;
const char* const font = "DejaVu Sans, Verdana, Arial, sans-serif";
const char* const text_colour = "#1a1a1a";
const char* const non_finite_colour = "#c8c8c8";  // grey: not on the viridis scale

// Text is escaped for XML: labels are the learner's tokens ("a<b&c" is a token too).
std::string escape(const std::string& text) {
    std::string out;
    for (const char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default: out += c;
        }
    }
    return out;
}

// A generous estimate of how wide a text is drawn (no font metrics in a text
// file): 0.64 em per code point, the width of a digit in DejaVu Sans.
double text_width(const std::string& text, double size) { return 0.64 * size * double(display_width(text)); }

std::string hex(Rgb c) { return fmt::format("#{:02x}{:02x}{:02x}", c.r, c.g, c.b); }

// Coordinates with one decimal: enough for a screen, and stable to compare.
std::string num(double v) { return fmt::format("{:.1f}", v); }

// Long labels are cut to 16 code points with a trailing "…".
std::string short_label(const std::string& s) {
    constexpr std::size_t limit = 16;
    if (display_width(s) <= limit) return s;
    std::string out;
    std::size_t used = 0;
    for (const char c : s) {
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80 && ++used > limit - 1) break;
        out += c;
    }
    return out + "…";
}

std::string svg_open(double width, double height) {
    return fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
        "font-family=\"{2}\" fill=\"{3}\">\n"
        "<rect class=\"background\" x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n",
        num(width), num(height), font, text_colour);
}

std::string text(double x, double y, double size, const std::string& anchor, const std::string& content,
                 const std::string& extra = "") {
    return fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"{}\"{}>{}</text>\n", num(x), num(y),
                       num(size), anchor, extra, escape(content));
}

}  // namespace

std::string heat_map_svg(const std::string& name, const std::string& formula, const Matrix& m,
                         const Labels& row_labels, const Labels& col_labels, int decimals) {
    const std::size_t n_rows = rows(m), n_cols = cols(m);
    const std::string title = fmt::format("{}{}   ({} × {})", name, formula.empty() ? "" : " = " + formula, n_rows,
                                          n_cols);

    // Square cells: 56 px, smaller when the matrix is big (the grid stays within 560 px).
    const double cell = std::clamp(std::floor(560.0 / double(std::max<std::size_t>({n_rows, n_cols, 1}))), 4.0, 56.0);

    // Values are written in the cells when the widest one fits.
    std::size_t widest_value = 1;
    for (const float v : m) widest_value = std::max(widest_value, format_number(v, decimals).size());
    double value_size = 12.0;
    while (value_size >= 8.0 && 0.64 * value_size * double(widest_value) > cell - 4.0) value_size -= 1.0;
    const bool values_fit = value_size >= 8.0;

    // Labels: every one when cells are tall enough for the text, else every k-th.
    const double label_font = std::clamp(cell - 3.0, 8.0, label_size);
    const auto label_every = static_cast<std::size_t>(std::ceil((label_font + 1.0) / cell));
    double row_label_width = 0.0, col_label_width = 0.0;
    for (std::size_t i = 0; i < n_rows; i += label_every)
        row_label_width = std::max(row_label_width, text_width(short_label(label_or_index(row_labels, i)), label_font));
    for (std::size_t j = 0; j < n_cols; j += label_every)
        col_label_width = std::max(col_label_width, text_width(short_label(label_or_index(col_labels, j)), label_font));
    // Column labels that are wider than a cell are drawn slanted, at −45°.
    const bool slanted = col_label_width > cell - 4.0;
    const double slant = col_label_width * std::sqrt(0.5);
    const double col_label_height = slanted ? slant + label_font : label_font + 6.0;
    // Slanted labels stand cell·sin 45° apart: where that is less than a line, label every k-th column.
    const auto col_every = slanted ? std::max(label_every, static_cast<std::size_t>(std::ceil(
                                                               (label_font + 1.0) / (cell * std::sqrt(0.5)))))
                                   : label_every;

    const double grid_left = margin + row_label_width + 8.0;
    const double grid_top = margin + title_size + 14.0 + col_label_height;
    const double grid_width = cell * double(n_cols), grid_height = cell * double(n_rows);
    const double grid_right = grid_left + grid_width;

    // The colour scale: the same ends and the same colours as the terminal shading.
    const auto [low, high] = finite_range(m);
    const bool any_finite = low <= high;
    bool has_nan = false, has_inf = false, has_minus_inf = false;
    for (const float v : m) {
        has_nan = has_nan || std::isnan(v);
        has_inf = has_inf || (std::isinf(v) && v > 0);
        has_minus_inf = has_minus_inf || (std::isinf(v) && v < 0);
    }
    const double bar_left = std::max(grid_right + 20.0, slanted ? grid_left + cell * (double(n_cols) - 0.5) + slant + 8.0 : 0.0);
    const double bar_width = 16.0, bar_height = std::max(grid_height, 120.0);
    double tick_width = 0.0;
    if (any_finite)
        tick_width = std::max(text_width(format_number(low, decimals), label_size),
                              text_width(format_number(high, decimals), label_size));
    if (has_minus_inf || has_nan || has_inf) tick_width = std::max(tick_width, text_width("-inf", label_size) + bar_width + 6.0);
    const double width = std::max(bar_left + bar_width + 6.0 + tick_width + margin,
                                  margin * 2.0 + text_width(title, title_size));
    const double legend_rows = (has_nan ? 1.0 : 0.0) + (has_inf ? 1.0 : 0.0) + (has_minus_inf ? 1.0 : 0.0);
    const double height =
        std::max(grid_top + grid_height, grid_top + bar_height + legend_rows * 22.0 + (legend_rows > 0 ? 8.0 : 0.0)) + margin;

    std::string out = svg_open(width, height);
    out += text(margin, margin + title_size, title_size, "start", title, " font-weight=\"bold\" class=\"title\"");

    // Column labels above the grid, row labels to its left.
    for (std::size_t j = 0; j < n_cols; j += col_every) {
        const std::string label = short_label(label_or_index(col_labels, j));
        const double x = grid_left + cell * (double(j) + 0.5);
        if (slanted) {
            const double x0 = x - label_font * 0.3, y0 = grid_top - 6.0;
            out += text(x0, y0, label_font, "start", label,
                        fmt::format(" transform=\"rotate(-45 {} {})\" class=\"col-label\"", num(x0), num(y0)));
        } else {
            out += text(x, grid_top - 6.0, label_font, "middle", label, " class=\"col-label\"");
        }
    }
    for (std::size_t i = 0; i < n_rows; i += label_every)
        out += text(grid_left - 8.0, grid_top + cell * (double(i) + 0.5) + label_font * 0.35, label_font, "end",
                    short_label(label_or_index(row_labels, i)), " class=\"row-label\"");

    // The cells, each with its value as a tooltip, and in the cell where it fits
    // (crisp edges: no hairline seams between neighbouring cells).
    out += "<g shape-rendering=\"crispEdges\">\n";
    for (std::size_t i = 0; i < n_rows; ++i)
        for (std::size_t j = 0; j < n_cols; ++j) {
            const float v = m(i, j);
            const std::string value = format_number(v, decimals);
            const Rgb c = viridis(scale_position(v, low, high));
            const bool finite = std::isfinite(v);
            const double x = grid_left + cell * double(j), y = grid_top + cell * double(i);
            out += fmt::format(
                "<rect class=\"cell\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{} → {}: "
                "{}</title></rect>\n",
                num(x), num(y), num(cell), num(cell), finite ? hex(c) : non_finite_colour,
                escape(label_or_index(row_labels, i)), escape(label_or_index(col_labels, j)), value);
            if (values_fit)
                out += text(x + cell / 2.0, y + cell / 2.0 + value_size * 0.35, value_size, "middle", value,
                            fmt::format(" fill=\"{}\" class=\"value\"",
                                        !finite || needs_dark_text(c) ? "#000000" : "#ffffff"));
        }
    out += "</g>\n";
    out += fmt::format("<rect class=\"frame\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
                       "stroke=\"#808080\" stroke-width=\"1\"/>\n",
                       num(grid_left), num(grid_top), num(grid_width), num(grid_height));

    // The colour bar: low at the bottom, high at the top, with the values of its ends.
    double legend_top = grid_top;
    if (any_finite) {
        constexpr int stops = 16;
        out += "<defs><linearGradient id=\"scale\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">\n";
        for (int k = 0; k <= stops; ++k)
            out += fmt::format("<stop offset=\"{:.4f}\" stop-color=\"{}\"/>\n", double(k) / stops,
                               hex(viridis(high > low ? double(k) / stops : 0.5)));
        out += "</linearGradient></defs>\n";
        out += fmt::format("<rect class=\"colour-bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"url(#scale)\" "
                           "stroke=\"#808080\" stroke-width=\"1\"/>\n",
                           num(bar_left), num(grid_top), num(bar_width), num(bar_height));
        const double tick_x = bar_left + bar_width + 6.0;
        out += text(tick_x, grid_top + label_size * 0.8, label_size, "start", format_number(high, decimals),
                    " class=\"scale-high\"");
        if (high > low)
            out += text(tick_x, grid_top + bar_height, label_size, "start", format_number(low, decimals),
                        " class=\"scale-low\"");
        legend_top = grid_top + bar_height + 8.0;
    }
    // Grey swatches name the non-finite values.
    for (const auto& [present, word] : {std::pair{has_minus_inf, "-inf"}, std::pair{has_inf, "inf"}, std::pair{has_nan, "nan"}}) {
        if (!present) continue;
        out += fmt::format("<rect class=\"swatch\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"14\" fill=\"{}\" "
                           "stroke=\"#808080\" stroke-width=\"1\"/>\n",
                           num(bar_left), num(legend_top), num(bar_width), non_finite_colour);
        out += text(bar_left + bar_width + 6.0, legend_top + 12.0, label_size, "start", word);
        legend_top += 22.0;
    }
    return out + "</svg>\n";
}

namespace {

// Okabe–Ito colours (told apart by colour-blind readers), dashes and markers:
// a series is recognisable by any one of the three.
const std::vector<std::string> series_colours{"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                              "#e69f00", "#56b4e9", "#000000", "#b8a000"};
const std::vector<std::string> series_dashes{"", "7 4", "2 3", "9 3 2 3"};

std::string marker(std::size_t series, double x, double y, const std::string& colour) {
    switch (series % 4) {
        case 0: return fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\"/>\n", num(x), num(y), colour);
        case 1:
            return fmt::format("<rect x=\"{}\" y=\"{}\" width=\"7\" height=\"7\" fill=\"{}\"/>\n", num(x - 3.5),
                               num(y - 3.5), colour);
        case 2:
            return fmt::format("<path d=\"M{} {} L{} {} L{} {} Z\" fill=\"{}\"/>\n", num(x), num(y - 4.5), num(x + 4.5),
                               num(y + 3.5), num(x - 4.5), num(y + 3.5), colour);
        default:
            return fmt::format("<path d=\"M{} {} L{} {} L{} {} L{} {} Z\" fill=\"{}\"/>\n", num(x), num(y - 5.0),
                               num(x + 4.5), num(y), num(x), num(y + 5.0), num(x - 4.5), num(y), colour);
    }
}

// Tick values "2", "0.05", "1000"; far from 1, powers of ten as "10⁶", "10⁻⁴".
std::string tick_text(double v, int decimals) {
    const double exponent = std::log10(std::fabs(v));
    if (v != 0.0 && (exponent >= 6.0 || exponent < -3.0)) {
        const auto e = static_cast<int>(std::floor(exponent + 1e-9));
        const double mantissa = v / std::pow(10.0, e);
        static const char* const superscripts[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
        std::string power = "10";
        if (e < 0) power += "⁻";
        for (const char d : std::to_string(std::abs(e))) power += superscripts[d - '0'];
        return std::fabs(mantissa - 1.0) < 1e-9 ? power : fmt::format("{:g}·{}", mantissa, power);
    }
    if (decimals < 0)  // a power of ten (or 2 or 5 times one) on a log axis: as many decimals as it needs
        decimals = v != 0.0 ? std::max(0, static_cast<int>(-std::floor(exponent + 1e-9))) : 0;
    return format_number(v, decimals);
}

// An axis: its ends, where its ticks go, and how a value maps to [0, 1].
struct Scale {
    bool log = false;
    double low = 0.0, high = 1.0;
    std::vector<double> ticks;
    int decimals = 0;

    double position(double v) const {
        return log ? (std::log10(v) - std::log10(low)) / (std::log10(high) - std::log10(low))
                   : (v - low) / (high - low);
    }
};

bool usable(double v, bool log) { return std::isfinite(v) && (!log || v > 0.0); }

Scale make_scale(const std::vector<double>& values, bool log) {
    Scale s;
    s.log = log;
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (const double v : values)
        if (usable(v, log)) low = std::min(low, v), high = std::max(high, v);
    if (log) {
        if (!(low <= high)) low = 1.0, high = 10.0;
        // The data's range, 5 % wider on each side; ticks at the powers of ten inside
        // it (every k-th when there are many), and at 2 and 5 times them when few.
        double first = std::log10(low), last = std::log10(high);
        const double pad = std::max(0.05 * (last - first), 0.05);
        first -= pad, last += pad;
        s.low = std::pow(10.0, first);
        s.high = std::pow(10.0, last);
        const double lowest = std::ceil(first - 1e-9), highest = std::floor(last + 1e-9);
        const double every = std::max(1.0, std::ceil((highest - lowest + 1.0) / 8.0));
        const bool few = highest - lowest < 2.0;
        for (double e = std::floor(first); e <= highest; e += 1.0)
            for (const double k : {1.0, 2.0, 5.0}) {
                const double t = k * std::pow(10.0, e);
                const bool wanted = k == 1.0 ? std::fmod(e - lowest, every) == 0.0 : few;
                if (wanted && t >= s.low * (1.0 - 1e-9) && t <= s.high * (1.0 + 1e-9)) s.ticks.push_back(t);
            }
        s.decimals = -1;  // each tick with its own decimals
        return s;
    }
    if (!(low <= high)) low = 0.0, high = 1.0;
    if (high - low < 1e-12 * std::max(1.0, std::fabs(high))) {
        const double pad = low == 0.0 ? 1.0 : std::fabs(low) * 0.1;
        low -= pad, high += pad;
    }
    // A "nice" step of 1, 2 or 5 times a power of ten, for about five intervals.
    const double raw = (high - low) / 5.0;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    double step = power;
    for (const double k : {1.0, 2.0, 5.0, 10.0})
        if (k * power >= raw * (1.0 - 1e-9)) {
            step = k * power;
            break;
        }
    s.low = std::floor(low / step + 1e-9) * step;
    s.high = std::ceil(high / step - 1e-9) * step;
    for (double t = s.low; t <= s.high + step * 1e-6; t += step) s.ticks.push_back(std::fabs(t) < step * 1e-9 ? 0.0 : t);
    s.decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
    return s;
}

}  // namespace

std::string line_plot_svg(const std::string& title, const Axis& x_axis, const Axis& y_axis,
                          const std::vector<Series>& series) {
    if (series.empty()) throw std::invalid_argument("a plot needs at least one series");
    std::vector<double> xs, ys;
    for (const auto& s : series) {
        if (s.x.size() != s.y.size())
            throw std::invalid_argument(fmt::format("series '{}' has {} x and {} y", s.label, s.x.size(), s.y.size()));
        for (std::size_t k = 0; k < s.x.size(); ++k)
            if (usable(s.x[k], x_axis.log) && usable(s.y[k], y_axis.log)) xs.push_back(s.x[k]), ys.push_back(s.y[k]);
    }
    const Scale sx = make_scale(xs, x_axis.log), sy = make_scale(ys, y_axis.log);

    double y_tick_width = 0.0;
    for (const double t : sy.ticks) y_tick_width = std::max(y_tick_width, text_width(tick_text(t, sy.decimals), label_size));
    double legend_width = 0.0;
    for (const auto& s : series) legend_width = std::max(legend_width, text_width(s.label, label_size));
    legend_width += 56.0;

    const double plot_left = margin + label_size + 12.0 + y_tick_width + 8.0;
    const double plot_top = margin + title_size + 20.0;
    const double plot_width = 480.0, plot_height = 320.0;
    const double plot_right = plot_left + plot_width, plot_bottom = plot_top + plot_height;
    const double width = std::max(plot_right + 24.0 + legend_width + margin, margin * 2.0 + text_width(title, title_size));
    const double height = plot_bottom + label_size * 2.0 + 24.0 + margin;
    const auto px = [&](double v) { return plot_left + plot_width * sx.position(v); };
    const auto py = [&](double v) { return plot_bottom - plot_height * sy.position(v); };

    std::string out = svg_open(width, height);
    out += text(margin, margin + title_size, title_size, "start", title, " font-weight=\"bold\" class=\"title\"");

    // Grid lines and tick labels.
    for (const double t : sx.ticks) {
        const double x = px(t);
        out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#e0e0e0\" stroke-width=\"1\"/>\n",
                           num(x), num(plot_top), num(plot_bottom));
        out += text(x, plot_bottom + label_size + 6.0, label_size, "middle", tick_text(t, sx.decimals), " class=\"x-tick\"");
    }
    for (const double t : sy.ticks) {
        const double y = py(t);
        out += fmt::format("<line x1=\"{1}\" y1=\"{0}\" x2=\"{2}\" y2=\"{0}\" stroke=\"#e0e0e0\" stroke-width=\"1\"/>\n",
                           num(y), num(plot_left), num(plot_right));
        out += text(plot_left - 6.0, y + label_size * 0.35, label_size, "end", tick_text(t, sy.decimals), " class=\"y-tick\"");
    }
    out += fmt::format("<rect class=\"frame\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
                       "stroke=\"#1a1a1a\" stroke-width=\"1\"/>\n",
                       num(plot_left), num(plot_top), num(plot_width), num(plot_height));
    const auto scale_note = [](const Axis& a) { return a.label + (a.log ? " · log scale" : ""); };
    out += text(plot_left + plot_width / 2.0, plot_bottom + label_size * 2.0 + 16.0, label_size, "middle",
                scale_note(x_axis), " class=\"x-label\"");
    const double y_label_x = margin + label_size, y_label_y = plot_top + plot_height / 2.0;
    out += text(y_label_x, y_label_y, label_size, "middle", scale_note(y_axis),
                fmt::format(" transform=\"rotate(-90 {} {})\" class=\"y-label\"", num(y_label_x), num(y_label_y)));

    // One line per series; a left-out point breaks its line.
    for (std::size_t k = 0; k < series.size(); ++k) {
        const auto& s = series[k];
        const std::string& colour = series_colours[k % series_colours.size()];
        const std::string& dash = series_dashes[k % series_dashes.size()];
        const std::string dash_attr = dash.empty() ? "" : fmt::format(" stroke-dasharray=\"{}\"", dash);
        out += fmt::format("<g class=\"series\" stroke=\"{}\"><title>{}</title>\n", colour, escape(s.label));
        std::vector<std::string> segments(1);
        std::string markers;
        for (std::size_t p = 0; p < s.x.size(); ++p) {
            if (!usable(s.x[p], x_axis.log) || !usable(s.y[p], y_axis.log)) {
                if (!segments.back().empty()) segments.emplace_back();
                continue;
            }
            const double x = px(s.x[p]), y = py(s.y[p]);
            segments.back() += (segments.back().empty() ? "" : " ") + num(x) + "," + num(y);
            if (s.x.size() <= 60) markers += marker(k, x, y, colour);
        }
        for (const auto& points : segments)
            if (!points.empty())
                out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke-width=\"2\"{}/>\n", points, dash_attr);
        out += "<g stroke=\"none\">\n" + markers + "</g>\n</g>\n";
    }

    // The legend, to the right of the plot.
    const double legend_left = plot_right + 24.0;
    out += fmt::format("<rect class=\"legend\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#ffffff\" "
                       "stroke=\"#b0b0b0\" stroke-width=\"1\"/>\n",
                       num(legend_left), num(plot_top), num(legend_width), num(double(series.size()) * 22.0 + 10.0));
    for (std::size_t k = 0; k < series.size(); ++k) {
        const std::string& colour = series_colours[k % series_colours.size()];
        const std::string& dash = series_dashes[k % series_dashes.size()];
        const double y = plot_top + 20.0 + 22.0 * double(k);
        out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"{}/>\n",
                           num(legend_left + 8.0), num(y - 4.0), num(legend_left + 40.0), num(y - 4.0), colour,
                           dash.empty() ? "" : fmt::format(" stroke-dasharray=\"{}\"", dash));
        if (series[k].x.size() <= 60) out += marker(k, legend_left + 24.0, y - 4.0, colour);
        out += text(legend_left + 48.0, y, label_size, "start", series[k].label, " class=\"legend-label\"");
    }
    return out + "</svg>\n";
}
