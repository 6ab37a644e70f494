// Writes, as C++ initialisers, the ranges of code points whose display width (utf8proc_charwidth)
// is not 1: {first, last, width}. The WebAssembly build's utf8proc.h reads them, so that a
// token's width on the page is the terminal's (there is no utf8proc for WebAssembly in Debian).
#include <cstdio>

#include <utf8proc.h>

int main() {
    constexpr utf8proc_int32_t last = 0x10FFFF;
    utf8proc_int32_t start = 0;
    int width = utf8proc_charwidth(0);
    for (utf8proc_int32_t c = 1; c <= last + 1; ++c) {
        const int w = c <= last ? utf8proc_charwidth(c) : -1;
        if (w == width) continue;
        if (width != 1) std::printf("{0x%X, 0x%X, %d},\n", unsigned(start), unsigned(c - 1), width);
        start = c, width = w;
    }
    return 0;
}
