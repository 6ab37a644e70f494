#include "common/display/text_width.hpp"

#include <utf8proc.h>

std::size_t display_width(const std::string& s) {
    std::size_t width = 0;
    const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
    utf8proc_ssize_t i = 0;
    const auto size = static_cast<utf8proc_ssize_t>(s.size());
    while (i < size) {
        utf8proc_int32_t code = 0;
        const utf8proc_ssize_t length = utf8proc_iterate(bytes + i, size - i, &code);
        if (length <= 0) {  // not UTF-8: one column for the byte, as a terminal shows a replacement
            ++width;
            ++i;
            continue;
        }
        width += static_cast<std::size_t>(utf8proc_charwidth(code));
        i += length;
    }
    return width;
}
