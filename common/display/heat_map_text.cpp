#include "common/display/heat_map_text.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "common/display/colormap.hpp"
#include "common/display/fit_width.hpp"
#include "common/display/print.hpp"
#include "common/display/text_width.hpp"

namespace {

constexpr std::size_t max_rows = 64, edge_rows = 32;
// A row's label is cut to this width ("a_very_long_tok…"): a learner's 300-character token
// must not push the map off the line.
constexpr std::size_t max_row_label_width = 16;

// Values of both signs are drawn on a scale centred on 0 (a negative value is not "less than
// nothing"): a cell is its nearest tenth of the way from 0 to the largest |value|, a digit above
// 0 and a subscript digit below.
bool diverging(float low, float high) { return low < 0.0f && high > 0.0f; }

const char* const below_zero[] = {"·", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉", "="};

// One entry: blank if exactly 0, else its nearest tenth of the way from low to high (from 0 to
// ±max|value| on a diverging scale).
std::string cell(float v, float low, float high) {
    if (std::isnan(v)) return "?";
    if (std::isinf(v)) return v > 0 ? "+" : "-";
    if (v == 0.0f) return " ";
    if (diverging(low, high)) {
        const long tenth = std::min(10L, std::lround(10.0 * std::abs(v) / std::max(-low, high)));
        if (v < 0) return below_zero[tenth];
        return tenth <= 0 ? "·" : tenth >= 10 ? "#" : std::to_string(tenth);
    }
    const long tenth = std::lround(10.0 * scale_position(v, low, high));
    return tenth <= 0 ? "·" : tenth >= 10 ? "#" : std::to_string(tenth);
}

// The indices shown: all, or the first and last `keep` / 2 with npos (the gap) between.
std::vector<std::size_t> kept(std::size_t count, std::size_t keep) {
    std::vector<std::size_t> shown;
    for (std::size_t i = 0; i < count; ++i)
        if (count <= keep || i < keep / 2 || i >= count - (keep - keep / 2)) {
            if (count > keep && i == count - (keep - keep / 2)) shown.push_back(std::string::npos);
            shown.push_back(i);
        }
    return shown;
}

}  // namespace

std::string heat_map_text(const std::string& name, const std::string& formula, const Matrix& m,
                          const Labels& row_labels, int decimals, std::size_t line_width) {
    std::string out = formula.empty() ? fmt::format("{}   {}\n", name, shape_text(m))
                                      : fmt::format("{} = {}   {}\n", name, formula, shape_text(m));
    const auto [low, high] = finite_range(m);
    const std::vector<std::size_t> shown_rows = kept(rows(m), rows(m) > max_rows ? 2 * edge_rows : rows(m));
    // The row labels: "index  label", padded to one width, then three spaces.
    const std::size_t index_width = std::to_string(std::max<std::size_t>(rows(m), 1) - 1).size();
    std::size_t label_width = 0;
    for (std::size_t i : shown_rows)
        if (i != std::string::npos && i < row_labels.size())
            label_width = std::max(label_width, display_width(cut_to_width(row_labels[i], max_row_label_width)));
    const std::size_t margin = index_width + (label_width ? 2 + label_width : 0) + 3;
    // The columns: all if they fit the line, else the first and last around one "…".
    const std::size_t room = line_width > margin + 4 ? line_width - margin : 4;
    const std::vector<std::size_t> shown_cols = kept(cols(m), cols(m) <= room ? cols(m) : room - 1);
    // Over the columns, their index: the tens above (written at every tenth column) the units.
    std::string tens(margin + shown_cols.size() + 8, ' '), units(margin, ' ');
    for (std::size_t k = 0; k < shown_cols.size(); ++k) {
        const std::size_t j = shown_cols[k];
        units += j == std::string::npos ? "…" : std::to_string(j % 10);
        const std::string number = std::to_string(j / 10);
        const std::size_t at = margin + k;
        if (j != std::string::npos && j % 10 == 0 && tens.find_first_not_of(' ', at > 0 ? at - 1 : 0) >= at + number.size() + 1)
            tens.replace(at, number.size(), number);
    }
    tens.erase(tens.find_last_not_of(' ') + 1);
    out += tens + "\n" + units + "\n";
    for (std::size_t i : shown_rows) {
        if (i == std::string::npos) {
            out += std::string(index_width - 1, ' ') + "⋮\n";
            continue;
        }
        std::string line = fmt::format("{:>{}}", i, index_width);
        if (label_width)
            line += "  " + pad_right(i < row_labels.size() ? cut_to_width(row_labels[i], max_row_label_width) : "", label_width);
        line += "   ";
        for (std::size_t j : shown_cols) line += j == std::string::npos ? "…" : cell(m(i, j), low, high);
        line.erase(line.find_last_not_of(' ') + 1);
        out += line + "\n";
    }
    const auto gap = [](const std::vector<std::size_t>& shown) {  // the first and last index left out
        const auto at = std::find(shown.begin(), shown.end(), std::string::npos);
        return std::make_pair(*(at - 1) + 1, *(at + 1) - 1);
    };
    if (cols(m) > room) {
        const auto [first, last] = gap(shown_cols);
        out += fmt::format("(columns {} to {} left out: the line holds {} characters)\n", first, last, line_width);
    }
    if (rows(m) > max_rows) {
        const auto [first, last] = gap(shown_rows);
        out += fmt::format("(rows {} to {} left out)\n", first, last);
    }
    if (diverging(low, high))
        out += fmt::format("each cell: how many tenths of the way from 0 to ±{} its value is\n"
                           "(· 0; above 0: 1 … 9, # 10; below 0: ₁ … ₉, = 10); blank: exactly 0\n",
                           format_number(std::max(-low, high), decimals));
    else
        out += fmt::format("each cell: how many tenths of the way from {} to {} its value is\n"
                           "(· 0, 1 … 9, # 10); blank: exactly 0\n",
                           format_number(low, decimals), format_number(high, decimals));
    return out;
}
