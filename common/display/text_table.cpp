#include "common/display/text_table.hpp"

#include <algorithm>

#include "common/display/fit_width.hpp"
#include "common/display/text_width.hpp"

namespace {
// A column of numbers is right-aligned, a column of words left-aligned; the
// marks of left-out rows (⋮, …) go with either.
bool is_number(const std::string& s) {
    if (s.empty() || s == "⋮" || s == "…") return true;
    return s.find_first_not_of("0123456789.,-+e×x%") == std::string::npos;  // (1,189,651: thousands)
}

constexpr std::size_t column_gap = 3;

// Narrows the widest columns until a line fits `max_width`: a column of words
// first, down to the width of the next widest, never below 4 (a letter or two and "…").
void narrow_to(std::vector<std::size_t>& width, const std::vector<bool>& right, std::size_t max_width) {
    constexpr std::size_t narrowest = 4;
    const auto total = [&] {
        std::size_t sum = width.empty() ? 0 : column_gap * (width.size() - 1);
        for (const auto w : width) sum += w;
        return sum;
    };
    while (total() > max_width) {
        std::size_t widest = width.size();
        for (const bool words : {true, false}) {
            for (std::size_t c = 0; c < width.size(); ++c)
                if (right[c] != words && width[c] > narrowest && (widest == width.size() || width[c] > width[widest]))
                    widest = c;
            if (widest < width.size()) break;
        }
        if (widest == width.size()) return;  // every column at its narrowest
        std::size_t next = narrowest;
        for (std::size_t c = 0; c < width.size(); ++c)
            if (c != widest && right[c] == right[widest]) next = std::max(next, std::min(width[c], width[widest]));
        const std::size_t excess = total() - max_width;
        const std::size_t by_excess = width[widest] > excess ? width[widest] - excess : 0;
        width[widest] = std::max({narrowest, next == width[widest] ? width[widest] - 1 : next, by_excess});
    }
}

}  // namespace

std::string format_table(const TextRow& header, const std::vector<TextRow>& body, std::size_t max_width) {
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

    narrow_to(width, right, max_width);

    const auto line = [&](const TextRow& row) {
        std::string out;
        for (std::size_t c = 0; c < width.size(); ++c) {
            const std::string cell = cut_to_width(c < row.size() ? row[c] : "", width[c]);
            const std::string fill(width[c] - display_width(cell), ' ');
            if (c > 0) out += std::string(column_gap, ' ');
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
