#include "common/display/print.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/color.h>
#include <fmt/format.h>

#include "common/display/colormap.hpp"
#include "common/display/fit_width.hpp"
#include "common/display/text_width.hpp"

namespace {

// Long labels are cut to `width` columns with a trailing "…".
std::string fit_label(const std::string& s, std::size_t width) { return cut_to_width(s, width); }

// Which indices to show: all of them, or the first and last `edge` with a gap (npos) between.
std::vector<std::size_t> shown_indices(std::size_t count, std::size_t limit, std::size_t edge) {
    std::vector<std::size_t> shown;
    if (count <= limit) {
        for (std::size_t i = 0; i < count; ++i) shown.push_back(i);
        return shown;
    }
    for (std::size_t i = 0; i < edge; ++i) shown.push_back(i);
    shown.push_back(std::string::npos);
    for (std::size_t i = count - edge; i < count; ++i) shown.push_back(i);
    return shown;
}

constexpr std::size_t max_label_width = 10;

}  // namespace

std::string shape_text(const Matrix& m) { return fmt::format("({} × {})", rows(m), cols(m)); }

std::string format_number(double value, int decimals) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    std::string text = fmt::format("{:.{}f}", value, decimals);
    if (text[0] == '-' && text.find_first_not_of("-0.") == std::string::npos) text.erase(0, 1);
    return text;
}

std::string format_matrix(const std::string& name, const std::string& formula, const Matrix& m,
                          const Labels& row_labels, const Labels& col_labels, const PrintStyle& style) {
    std::string out = wrap_to_width(formula.empty() ? fmt::format("{}   {}", name, shape_text(m))
                                                    : fmt::format("{} = {}   {}", name, formula, shape_text(m)),
                                    style.line_width, 2) + "\n";
    const auto shown_rows = shown_indices(rows(m), style.max_rows, style.edge_items);
    std::size_t label_width = 1;
    for (const auto i : shown_rows)
        if (i != std::string::npos)
            label_width = std::max(label_width, display_width(fit_label(label_or_index(row_labels, i), max_label_width)));

    // The columns: numpy's rule (the first and last `edge_items` of a wide matrix),
    // with fewer at each edge until a row fits the terminal's width.
    std::vector<std::size_t> shown_cols;
    std::size_t width = 1;  // the widest number or label in the shown cells
    for (std::size_t edge = style.edge_items;; --edge) {
        const std::size_t limit = edge == style.edge_items ? style.max_cols : 2 * edge;
        shown_cols = shown_indices(cols(m), limit, edge);
        width = 1;
        for (const auto j : shown_cols) {
            if (j == std::string::npos) continue;
            width = std::max(width, display_width(fit_label(label_or_index(col_labels, j), max_label_width)));
            for (const auto i : shown_rows)
                if (i != std::string::npos) width = std::max(width, format_number(m(i, j), style.decimals).size());
        }
        const std::size_t line = label_width + shown_cols.size() * (width + 2);
        if (line <= style.line_width || edge == 1) break;
    }

    // The colour scale runs over the finite values of the matrix.
    const auto [low, high] = finite_range(m);

    // Column labels.
    std::string line = std::string(label_width, ' ');
    for (const auto j : shown_cols)
        line += "  " + (j == std::string::npos ? std::string("…")
                                                : pad_left(fit_label(label_or_index(col_labels, j), max_label_width), width));
    out += line + "\n";

    for (const auto i : shown_rows) {
        if (i == std::string::npos) {
            out += pad_right("⋮", label_width) + "\n";
            continue;
        }
        line = pad_right(fit_label(label_or_index(row_labels, i), max_label_width), label_width);
        for (const auto j : shown_cols) {
            if (j == std::string::npos) {
                line += "  …";
                continue;
            }
            const float v = m(i, j);
            const std::string cell = pad_left(format_number(v, style.decimals), width);
            if (style.color && std::isfinite(v)) {
                const Rgb c = viridis(scale_position(v, low, high));
                const auto text = needs_dark_text(c) ? fmt::rgb(0, 0, 0) : fmt::rgb(255, 255, 255);
                line += "  " + fmt::format(fmt::bg(fmt::rgb(c.r, c.g, c.b)) | fmt::fg(text), "{}", cell);
            } else {
                line += "  " + cell;
            }
        }
        out += line + "\n";
    }
    return out;
}

std::string with_commas(std::size_t n) {
    const std::string digits = std::to_string(n);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}
