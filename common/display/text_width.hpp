// How many terminal columns a UTF-8 string takes, as a terminal draws it:
// "Q · Kᵀ" or "…" one column a character, 猫 or 🐈 two, a combining accent none
// (utf8proc's Unicode tables, Debian's libutf8proc). Tables and matrices align
// on this, so tokens in any script line up.
#pragma once

#include <string>

std::size_t display_width(const std::string& s);
