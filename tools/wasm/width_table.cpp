// Writes, as C++ initialisers, the ranges of code points whose display width (utf8proc_charwidth)
// is not 1: {first, last, width}; or, with the argument "categories", the ranges of code points of
// one Unicode category other than Cn (utf8proc_category): {first, last, category}. The WebAssembly
// build's utf8proc.h reads them, so that a token's width on the page is the terminal's, and GPT-2's
// pattern sees the same letters and numbers (there is no utf8proc for WebAssembly in Debian).
#include <cstdio>
#include <cstring>

#include <utf8proc.h>

int main(int argc, char** argv) {
    const bool categories = argc > 1 && std::strcmp(argv[1], "categories") == 0;
    const auto value = [categories](utf8proc_int32_t c) {
        return categories ? int(utf8proc_category(c)) : utf8proc_charwidth(c);
    };
    const int usual = categories ? int(UTF8PROC_CATEGORY_CN) : 1;  // left out of the table
    constexpr utf8proc_int32_t last = 0x10FFFF;
    utf8proc_int32_t start = 0;
    int current = value(0);
    for (utf8proc_int32_t c = 1; c <= last + 1; ++c) {
        const int v = c <= last ? value(c) : -1;
        if (v == current) continue;
        if (current != usual) std::printf("{0x%X, 0x%X, %d},\n", unsigned(start), unsigned(c - 1), current);
        start = c, current = v;
    }
    return 0;
}
