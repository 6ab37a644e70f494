// How many terminal columns a UTF-8 string takes: one per code point
// (labels like "Q · Kᵀ" or "…" are several bytes but one column each).
#pragma once

#include <algorithm>
#include <string>

inline std::size_t display_width(const std::string& s) {
    return static_cast<std::size_t>(
        std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}
