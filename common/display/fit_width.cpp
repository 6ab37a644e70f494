#include "common/display/fit_width.hpp"

#include <vector>

#include <utf8proc.h>

#include "common/display/text_width.hpp"

namespace {

// Bytes of the longest prefix of `s` that takes at most `width` columns, whole
// code points only (a byte that is not UTF-8 counts as one column, as display_width does).
std::size_t fitting_prefix(const std::string& s, std::size_t width) {
    const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
    const auto size = static_cast<utf8proc_ssize_t>(s.size());
    std::size_t used = 0;
    utf8proc_ssize_t i = 0;
    while (i < size) {
        utf8proc_int32_t code = 0;
        utf8proc_ssize_t length = utf8proc_iterate(bytes + i, size - i, &code);
        std::size_t columns = 1;
        if (length <= 0) length = 1;
        else columns = static_cast<std::size_t>(utf8proc_charwidth(code));
        if (used + columns > width) break;
        used += columns;
        i += length;
    }
    return static_cast<std::size_t>(i);
}

std::string wrap_line(const std::string& line, std::size_t width, std::size_t hanging) {
    const std::size_t indent = std::min(line.find_first_not_of(' '), line.size());
    // Never indent so far that nothing fits after it.
    const std::string margin(std::min(indent + hanging, width / 2), ' ');
    std::vector<std::string> words;
    for (std::size_t start = indent; start < line.size();) {
        const std::size_t end = std::min(line.find(' ', start), line.size());
        if (end > start) words.push_back(line.substr(start, end - start));
        start = end + 1;
    }
    std::string out, current = line.substr(0, indent);
    std::size_t used = indent;
    bool first_on_line = true;
    for (std::string word : words) {
        std::size_t w = display_width(word);
        if (!first_on_line && used + 1 + w > width) {  // the next line
            out += current + "\n";
            current = margin, used = margin.size(), first_on_line = true;
        }
        while (used + (first_on_line ? 0 : 1) + w > width) {  // a word wider than a whole line
            if (!first_on_line) current += ' ', ++used;
            const std::size_t part = std::max<std::size_t>(1, fitting_prefix(word, width - used));
            out += current + word.substr(0, part) + "\n";
            word = word.substr(part), w = display_width(word);
            current = margin, used = margin.size(), first_on_line = true;
        }
        if (!first_on_line) current += ' ', ++used;
        current += word, used += w, first_on_line = false;
    }
    return out + current;
}

}  // namespace

std::string cut_to_width(const std::string& s, std::size_t width) {
    if (display_width(s) <= width) return s;
    if (width == 0) return "";
    return s.substr(0, fitting_prefix(s, width - 1)) + "…";
}

std::string wrap_to_width(const std::string& text, std::size_t width, std::size_t hanging) {
    std::string out;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        const std::string line = text.substr(start, end - start);
        out += display_width(line) <= width ? line : wrap_line(line, width, hanging);
        if (end < text.size()) out += "\n";
        start = end + 1;
    }
    return out;
}

std::string pad_left(const std::string& s, std::size_t width) {
    const std::size_t w = display_width(s);
    return w >= width ? s : std::string(width - w, ' ') + s;
}

std::string pad_right(const std::string& s, std::size_t width) {
    const std::size_t w = display_width(s);
    return w >= width ? s : s + std::string(width - w, ' ');
}

std::string label_or_index(const std::vector<std::string>& labels, std::size_t i) {
    return i < labels.size() ? labels[i] : std::to_string(i);
}
