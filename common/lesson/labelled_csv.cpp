#include "common/lesson/labelled_csv.hpp"

#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/math/input_error.hpp"

namespace {

constexpr std::uintmax_t max_file_bytes = 64u << 20;  // far more than any lesson needs
// The largest magnitude a lesson takes. Its products are summed into scores,
// divided by small temperatures and trained on: past this, float32 overflows to
// inf and the lesson would print nan instead of a lesson.
constexpr double max_magnitude = 1e6;

std::string trim(const std::string& s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string::npos) return "";
    const auto last = s.find_last_not_of(" \t");
    return s.substr(first, last - first + 1);
}

std::vector<std::string> split_cells(const std::string& line) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream in(line);
    while (std::getline(in, cell, ',')) cells.push_back(trim(cell));
    if (!line.empty() && line.back() == ',') cells.emplace_back();  // a trailing empty cell
    return cells;
}

// "file:line: column c ('name'): message"
[[noreturn]] void fail(const std::string& source, std::size_t line, const std::string& message) {
    throw InputError(fmt::format("{}:{}: {}", source, line, message));
}

float parse_number(const std::string& cell, const std::string& source, std::size_t line,
                   std::size_t column, const std::string& column_name) {
    const auto where = fmt::format("column {} ('{}')", column, column_name);
    if (cell.empty()) fail(source, line, fmt::format("{}: expected a number, found an empty cell", where));
    const char* begin = cell.data();
    const char* end = cell.data() + cell.size();
    if (*begin == '+') ++begin;  // from_chars does not take a leading '+'
    double value = 0.0;
    const auto result = std::from_chars(begin, end, value);
    if (result.ec != std::errc() || result.ptr != end) {
        if (result.ec == std::errc::result_out_of_range)
            fail(source, line, fmt::format("{}: '{}' is out of range for a float", where, cell));
        fail(source, line, fmt::format("{}: expected a number, found '{}'", where, cell));
    }
    if (!std::isfinite(value))
        fail(source, line, fmt::format("{}: expected a finite number, found '{}'", where, cell));
    if (std::fabs(value) > 3.0e38)
        fail(source, line, fmt::format("{}: '{}' is out of range for a float", where, cell));
    if (std::fabs(value) > max_magnitude)
        fail(source, line, fmt::format("{}: '{}' is too large: a lesson takes values within ±{:g} (larger ones "
                                       "overflow float32 once multiplied and summed)", where, cell, max_magnitude));
    return static_cast<float>(value);
}

}  // namespace

LabelledMatrix parse_labelled_csv(const std::string& text, const std::string& source) {
    std::vector<std::string> lines;
    {
        std::istringstream in(text);
        std::string line;
        while (std::getline(in, line)) {
            if (!line.empty() && line.back() == '\r') line.pop_back();  // Windows line ends
            lines.push_back(line);
        }
    }
    while (!lines.empty() && trim(lines.back()).empty()) lines.pop_back();  // trailing blank lines
    if (lines.empty())
        fail(source, 1, "the file is empty; expected a header 'token,<dimension names…>'");

    LabelledMatrix table;
    table.source = source;
    const auto header = split_cells(lines[0]);
    if (header.empty() || header[0] != "token")
        fail(source, 1, fmt::format("expected a header starting with 'token,', found '{}'", lines[0]));
    if (header.size() < 2)
        fail(source, 1, "the header names no dimensions; expected 'token,<dimension names…>'");
    for (std::size_t c = 1; c < header.size(); ++c) {
        if (header[c].empty())
            fail(source, 1, fmt::format("column {}: the header has an empty dimension name", c + 1));
        table.columns.push_back(header[c]);
    }
    if (lines.size() < 2)
        fail(source, 2, "expected at least one token row after the header, found none");

    const std::size_t width = table.columns.size();
    table.values = Matrix::from_shape({lines.size() - 1, width});
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const std::size_t line = i + 1;
        if (trim(lines[i]).empty()) fail(source, line, "empty line; expected a token row");
        const auto cells = split_cells(lines[i]);
        if (cells.size() != width + 1)
            fail(source, line, fmt::format("expected {} cells (the token and {} numbers, as in the header), found {}",
                                           width + 1, width, cells.size()));
        if (cells[0].empty()) fail(source, line, "column 1: the token name is empty");
        table.rows.push_back(cells[0]);
        for (std::size_t c = 0; c < width; ++c)
            table.values(i - 1, c) = parse_number(cells[c + 1], source, line, c + 2, table.columns[c]);
    }
    return table;
}

LabelledMatrix read_labelled_csv(const std::string& path) {
    std::error_code error;
    if (std::filesystem::is_directory(path, error))
        throw InputError(fmt::format("{}: is a directory; expected a labelled CSV file", path));
    const auto size = std::filesystem::file_size(path, error);
    if (!error && size > max_file_bytes)
        throw InputError(fmt::format("{}: the file has {} bytes; a lesson reads at most {} MiB", path, size,
                                     max_file_bytes >> 20));
    std::ifstream file(path, std::ios::binary);
    if (!file) throw InputError(fmt::format("{}: cannot open the file ({})", path, std::strerror(errno)));
    std::ostringstream text;
    text << file.rdbuf();
    if (file.bad()) throw InputError(fmt::format("{}: cannot read the file", path));
    return parse_labelled_csv(text.str(), path);
}

void require_width(const LabelledMatrix& table, std::size_t width, const std::string& why) {
    if (table.columns.size() != width)
        throw InputError(fmt::format("{}:1: the header names {} dimensions; expected {} to match {}",
                                     table.source, table.columns.size(), width, why));
}
