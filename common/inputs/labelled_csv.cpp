#include "common/inputs/labelled_csv.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/machine/machine_memory.hpp"
#include "common/numbers/input_error.hpp"

namespace {

#if defined(__EMSCRIPTEN__)
// WebAssembly's C++ library has no from_chars for double: strtod, refusing what from_chars
// would not read (leading space, a '+', hexadecimal). ERANGE is out of range, as there.
std::from_chars_result number_from_chars(const char* begin, const char* end, double& value) {
    const std::string text(begin, end);
    const char* digits = text.c_str() + (text.rfind('-', 0) == 0 ? 1 : 0);
    if (text.empty() || std::isspace(static_cast<unsigned char>(*digits)) || *digits == '+' ||
        text.find_first_of("xX") != std::string::npos)
        return {begin, std::errc::invalid_argument};
    char* stop = nullptr;
    errno = 0;
    const double read = std::strtod(text.c_str(), &stop);
    if (stop == text.c_str()) return {begin, std::errc::invalid_argument};
    if (errno == ERANGE) return {begin + (stop - text.c_str()), std::errc::result_out_of_range};
    value = read;
    return {begin + (stop - text.c_str()), std::errc()};
}
#else
std::from_chars_result number_from_chars(const char* begin, const char* end, double& value) {
    return std::from_chars(begin, end, value);
}
#endif

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

// The cells of a line. A cell in double quotes (as spreadsheets write a name
// with a comma or a quote in it) loses its quotes, and "" inside is one ".
std::vector<std::string> split_cells(const std::string& line) {
    std::vector<std::string> cells;
    std::string cell;
    bool quoted = false, was_quoted = false;
    for (std::size_t i = 0; i <= line.size(); ++i) {
        const char c = i < line.size() ? line[i] : ',';
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                cell += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                cell += c;
            }
        } else if (c == '"' && trim(cell).empty() && !was_quoted) {
            quoted = was_quoted = true;
            cell.clear();
        } else if (c == ',') {
            cells.push_back(was_quoted ? cell : trim(cell));
            cell.clear();
            was_quoted = false;
        } else if (!was_quoted || (c != ' ' && c != '\t')) {
            cell += c;  // (spaces after a closing quote are dropped)
        }
    }
    return cells;
}

// How a value is shown in a message: quoted, with every character that is not
// printable ASCII escaped ('0.8\u200b', '\x1b[31m'), and cut to 40 characters,
// so that what is invisible shows and a message stays one readable line.
std::string shown(const std::string& value) {
    std::string out;
    std::size_t i = 0, count = 0;
    while (i < value.size() && count < 40) {
        const auto c = static_cast<unsigned char>(value[i]);
        if (c >= 0x20 && c < 0x7f) {
            out += value[i++];
        } else if (c < 0x80) {
            out += fmt::format("\\x{:02x}", c);
            ++i;
        } else {  // a UTF-8 sequence: its code point
            const std::size_t length = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
            char32_t code = c & (length == 4 ? 0x07 : length == 3 ? 0x0f : 0x1f);
            for (std::size_t k = 1; k < length && i + k < value.size(); ++k)
                code = (code << 6) | (static_cast<unsigned char>(value[i + k]) & 0x3f);
            out += fmt::format("\\u{:04x}", static_cast<std::uint32_t>(code));
            i += length;
        }
        ++count;
    }
    return "'" + out + (i < value.size() ? "…" : "") + "'";
}

// "file:line: column c ('name'): message"
[[noreturn]] void fail(const std::string& source, std::size_t line, const std::string& message) {
    throw InputError(fmt::format("{}:{}: {}", source, line, message));
}

float parse_number(const std::string& cell, const std::string& source, std::size_t line,
                   std::size_t column, const std::string& column_name) {
    const auto where = fmt::format("column {} ({})", column, shown(column_name));
    if (cell.empty()) fail(source, line, fmt::format("{}: expected a number, found an empty cell", where));
    const char* begin = cell.data();
    const char* end = cell.data() + cell.size();
    // from_chars takes no leading '+'; one sign only ("+-1" is not a number).
    if (*begin == '+' && begin + 1 != end && begin[1] != '-' && begin[1] != '+') ++begin;
    double value = 0.0;
    const auto result = number_from_chars(begin, end, value);
    if (result.ec != std::errc() || result.ptr != end) {
        if (result.ec == std::errc::result_out_of_range)
            fail(source, line, fmt::format("{}: {} is out of range for a float", where, shown(cell)));
        fail(source, line, fmt::format("{}: expected a number, found {}", where, shown(cell)));
    }
    if (!std::isfinite(value))
        fail(source, line, fmt::format("{}: expected a finite number, found {}", where, shown(cell)));
    if (std::fabs(value) > 3.0e38)
        fail(source, line, fmt::format("{}: {} is out of range for a float", where, shown(cell)));
    if (std::fabs(value) > max_magnitude)
        fail(source, line, fmt::format("{}: {} is too large: a lesson takes values within ±{:g} (larger ones "
                                       "overflow float32 once multiplied and summed)", where, shown(cell), max_magnitude));
    return static_cast<float>(value);
}

// The byte at which `text` stops being UTF-8; text.size() when all of it is.
std::size_t first_non_utf8(const std::string& text) {
    std::size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        const std::size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
        if (length == 0 || i + length > text.size() || (length == 2 && c < 0xc2)) return i;
        for (std::size_t k = 1; k < length; ++k)
            if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return i;
        i += length;
    }
    return text.size();
}

// The file's text as UTF-8, without the byte-order mark that Excel's "CSV UTF-8"
// puts first; a UTF-16 or UTF-32 file (Excel's "Unicode text"), or one in another
// 8-bit encoding (Windows-1252, Latin-1: "café" as 63 61 66 e9), is refused with
// how to save it instead.
std::string utf8_text(const std::string& raw, const std::string& source) {
    const std::string resave = "save it from the spreadsheet as \"CSV UTF-8\" (or from an editor as UTF-8)";
    auto starts = [&](const char* bom, std::size_t n) { return raw.size() >= n && raw.compare(0, n, bom, n) == 0; };
    if (starts("\xff\xfe\0\0", 4) || starts("\0\0\xfe\xff", 4))
        throw InputError(fmt::format("{}:1: the file is UTF-32, not UTF-8; {}", source, resave));
    if (starts("\xff\xfe", 2) || starts("\xfe\xff", 2) || raw.find('\0') != std::string::npos)
        throw InputError(fmt::format("{}:1: the file is UTF-16 (or holds NUL bytes), not UTF-8; {}", source, resave));
    const std::string text = starts("\xef\xbb\xbf", 3) ? raw.substr(3) : raw;
    const std::size_t bad = first_non_utf8(text);
    if (bad < text.size()) {
        const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + long(bad), '\n'));
        throw InputError(fmt::format("{}:{}: the byte 0x{:02x} is not UTF-8 (Windows-1252 or Latin-1?); {}", source,
                                     line, static_cast<unsigned char>(text[bad]), resave));
    }
    return text;
}

// A name printed in a table must not move the cursor or colour the terminal.
void require_printable(const std::string& name, const std::string& what, const std::string& source,
                       std::size_t line) {
    for (const char c : name)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            fail(source, line, fmt::format("{} {} has a control character", what, shown(name)));
}

}  // namespace

LabelledMatrix parse_labelled_csv(const std::string& raw, const std::string& source, std::uint64_t square_matrices) {
    const std::string text = utf8_text(raw, source);
    // Lines end in LF (Linux, macOS), CR LF (Windows) or a lone CR (old Macs:
    // Excel's "CSV (Macintosh)"): all three read the same.
    std::vector<std::string> lines;
    {
        std::string line;
        for (std::size_t i = 0; i < text.size(); ++i) {
            if (text[i] == '\r' || text[i] == '\n') {
                lines.push_back(line);
                line.clear();
                if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
            } else {
                line += text[i];
            }
        }
        if (!line.empty()) lines.push_back(line);
    }
    while (!lines.empty() && trim(lines.back()).empty()) lines.pop_back();  // trailing blank lines
    // A lesson keeps a handful of n × n matrices of its n tokens (scores, weights,
    // masks, their loop forms): refuse a length whose matrices cannot fit, now,
    // before a number is read or any matrix is made.
    const std::uint64_t n = lines.empty() ? 0 : lines.size() - 1, needed = bytes_of_floats({square_matrices, n, n});
    if (needed > (std::uint64_t{4} << 20))  // (a few MiB fit anywhere: no need to ask the system)
        require_memory(fmt::format("{}: {} tokens ({} n × n matrices of this lesson)", source, n, square_matrices),
                       needed, memory_limit_bytes());
    if (lines.empty())
        fail(source, 1, "the file is empty; expected a header 'token,<dimension names…>'");

    LabelledMatrix table;
    table.source = source;
    if (std::count(lines[0].begin(), lines[0].end(), '"') % 2 != 0)
        fail(source, 1, "a double quote is not closed (a quoted cell ends with a second \")");
    const auto header = split_cells(lines[0]);
    if (header.empty() || header[0] != "token")
        fail(source, 1, fmt::format("expected a header starting with 'token,', found {}", shown(lines[0])));
    if (header.size() < 2)
        fail(source, 1, "the header names no dimensions; expected 'token,<dimension names…>'");
    for (std::size_t c = 1; c < header.size(); ++c) {
        if (header[c].empty())
            fail(source, 1, fmt::format("column {}: the header has an empty dimension name", c + 1));
        require_printable(header[c], "the dimension name", source, 1);
        table.columns.push_back(header[c]);
    }
    if (lines.size() < 2)
        fail(source, 2, "expected at least one token row after the header, found none");

    const std::size_t width = table.columns.size();
    table.values = Matrix::from_shape({lines.size() - 1, width});
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const std::size_t line = i + 1;
        if (trim(lines[i]).empty()) fail(source, line, "empty line; expected a token row");
        if (std::count(lines[i].begin(), lines[i].end(), '"') % 2 != 0)
            fail(source, line, "a double quote is not closed (a quoted cell ends with a second \")");
        const auto cells = split_cells(lines[i]);
        if (cells.size() != width + 1)
            fail(source, line, fmt::format("expected {} cells (the token and {} numbers, as in the header), found {}",
                                           width + 1, width, cells.size()));
        if (cells[0].empty()) fail(source, line, "column 1: the token name is empty");
        require_printable(cells[0], "the token name", source, line);
        table.rows.push_back(cells[0]);
        for (std::size_t c = 0; c < width; ++c)
            table.values(i - 1, c) = parse_number(cells[c + 1], source, line, c + 2, table.columns[c]);
    }
    return table;
}

LabelledMatrix read_labelled_csv(const std::string& path, std::uint64_t square_matrices) {
    std::error_code error;
    if (std::filesystem::is_directory(path, error))
        throw InputError(fmt::format("{}: is a directory; expected a labelled CSV file", path));
    const auto size = std::filesystem::file_size(path, error);
    if (!error && size > max_file_bytes)
        throw InputError(fmt::format("{}: the file has {} bytes; a lesson reads at most {} MiB", path, size,
                                     max_file_bytes >> 20));
    std::ifstream file(path, std::ios::binary);
    if (!file) throw InputError(fmt::format("{}: cannot open the file ({})", path, std::strerror(errno)));
    // Read at most the limit and one byte more: /dev/zero or a pipe has no size to ask.
    std::string text;
    char chunk[1 << 16];
    while (text.size() <= max_file_bytes && file.read(chunk, sizeof chunk).gcount() > 0)
        text.append(chunk, static_cast<std::size_t>(file.gcount()));
    if (file.bad()) throw InputError(fmt::format("{}: cannot read the file", path));
    if (text.size() > max_file_bytes)
        throw InputError(fmt::format("{}: the file is larger than {} MiB, the most a lesson reads", path,
                                     max_file_bytes >> 20));
    return parse_labelled_csv(text, path, square_matrices);
}

void require_width(const LabelledMatrix& table, std::size_t width, const std::string& why) {
    if (table.columns.size() != width)
        throw InputError(fmt::format("{}:1: the header names {} dimensions; expected {} to match {}",
                                     table.source, table.columns.size(), width, why));
}
