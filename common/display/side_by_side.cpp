#include "common/display/side_by_side.hpp"

#include <algorithm>

#include "common/display/text_width.hpp"

namespace {

std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
        lines.push_back(text.substr(start, end - start));
    if (start < text.size()) lines.push_back(text.substr(start));
    return lines;
}

}  // namespace

std::size_t visible_width(const std::string& line) {
    std::string plain;
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '\x1b') {
            while (i < line.size() && line[i] != 'm') ++i;
            continue;
        }
        plain += line[i];
    }
    return display_width(plain);
}

std::string side_by_side(const std::vector<std::string>& blocks, std::size_t width) {
    constexpr std::size_t gap = 4;
    std::string out;
    std::size_t first = 0;
    while (first < blocks.size()) {
        // As many blocks as fit, at least one.
        std::vector<std::vector<std::string>> group;
        std::vector<std::size_t> widths;
        std::size_t used = 0;
        for (std::size_t b = first; b < blocks.size(); ++b) {
            auto lines = split_lines(blocks[b]);
            std::size_t w = 0;
            for (const auto& line : lines) w = std::max(w, visible_width(line));
            if (!group.empty() && used + gap + w > width) break;
            used += (group.empty() ? 0 : gap) + w;
            group.push_back(std::move(lines));
            widths.push_back(w);
        }
        std::size_t height = 0;
        for (const auto& lines : group) height = std::max(height, lines.size());
        out += "\n";
        for (std::size_t r = 0; r < height; ++r) {
            std::string line;
            for (std::size_t g = 0; g < group.size(); ++g) {
                const std::string cell = r < group[g].size() ? group[g][r] : "";
                if (g > 0) line += std::string(gap, ' ');
                line += cell + std::string(widths[g] - visible_width(cell), ' ');
            }
            while (!line.empty() && line.back() == ' ') line.pop_back();
            out += line + "\n";
        }
        first += group.size();
    }
    return out;
}
