#include "common/lesson/text_table.hpp"

#include <algorithm>

#include "common/lesson/text_width.hpp"

namespace {
// A column of numbers is right-aligned, a column of words left-aligned; the
// marks of left-out rows (⋮, …) go with either.
bool is_number(const std::string& s) {
    if (s.empty() || s == "⋮" || s == "…") return true;
    return s.find_first_not_of("0123456789.-+e×x%") == std::string::npos;
}
}  // namespace

std::string format_table(const TextRow& header, const std::vector<TextRow>& body) {
    std::vector<std::size_t> width(header.size(), 0);
    const auto measure = [&](const TextRow& row) {
        for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
            width[c] = std::max(width[c], display_width(row[c]));
    };
    measure(header);
    for (const auto& row : body) measure(row);
    std::vector<bool> right(width.size(), true);
    for (const auto& row : body)
        for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) right[c] = right[c] && is_number(row[c]);

    const auto line = [&](const TextRow& row) {
        std::string out;
        for (std::size_t c = 0; c < width.size(); ++c) {
            const std::string cell = c < row.size() ? row[c] : "";
            const std::string fill(width[c] - display_width(cell), ' ');
            if (c > 0) out += "   ";
            out += right[c] ? fill + cell : cell + fill;
        }
        while (!out.empty() && out.back() == ' ') out.pop_back();
        return out + "\n";
    };
    TextRow rule;
    for (const auto w : width) {
        std::string r;
        for (std::size_t i = 0; i < w; ++i) r += "─";
        rule.push_back(r);
    }
    std::string out = line(header) + line(rule);
    for (const auto& row : body) out += line(row);
    return out;
}

std::string grouped(std::uint64_t value, std::size_t width) {
    const std::string digits = std::to_string(value);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ' ';
        out += digits[i];
    }
    return out.size() < width ? std::string(width - out.size(), ' ') + out : out;
}
