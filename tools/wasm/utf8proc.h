// The four functions of utf8proc the project calls, for the WebAssembly build (Debian has no
// utf8proc for WebAssembly): decoding and encoding UTF-8 as utf8proc 2.8 does, and each code
// point's display width and Unicode category read from the machine's own utf8proc when the build
// was configured (utf8proc_widths.inc and utf8proc_categories.inc, written by
// tools/wasm/width_table.cpp).
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef int32_t utf8proc_int32_t;
typedef uint32_t utf8proc_uint32_t;
typedef uint8_t utf8proc_uint8_t;
typedef ptrdiff_t utf8proc_ssize_t;
#define UTF8PROC_ERROR_INVALIDUTF8 -3

// The code point at str into *dst (−1 when none); returns the bytes read, or
// UTF8PROC_ERROR_INVALIDUTF8 for bytes that are not UTF-8 (overlong, a surrogate, past U+10FFFF).
inline utf8proc_ssize_t utf8proc_iterate(const utf8proc_uint8_t* str, utf8proc_ssize_t length, utf8proc_int32_t* dst) {
    *dst = -1;
    if (length == 0) return 0;
    const utf8proc_uint8_t* end = str + (length < 0 ? 4 : length);
    const auto continues = [](utf8proc_uint8_t c) { return (c & 0xC0) == 0x80; };
    utf8proc_int32_t c = *str++;
    if (c < 0x80) return *dst = c, 1;
    if (utf8proc_uint32_t(c - 0xC2) > 0xF4 - 0xC2) return UTF8PROC_ERROR_INVALIDUTF8;
    if (c < 0xE0) {
        if (str >= end || !continues(str[0])) return UTF8PROC_ERROR_INVALIDUTF8;
        return *dst = ((c & 0x1F) << 6) | (str[0] & 0x3F), 2;
    }
    if (c < 0xF0) {
        if (str + 1 >= end || !continues(str[0]) || !continues(str[1])) return UTF8PROC_ERROR_INVALIDUTF8;
        if (c == 0xED && str[0] > 0x9F) return UTF8PROC_ERROR_INVALIDUTF8;  // a surrogate
        c = ((c & 0xF) << 12) | ((str[0] & 0x3F) << 6) | (str[1] & 0x3F);
        if (c < 0x800) return UTF8PROC_ERROR_INVALIDUTF8;  // overlong
        return *dst = c, 3;
    }
    if (str + 2 >= end || !continues(str[0]) || !continues(str[1]) || !continues(str[2]))
        return UTF8PROC_ERROR_INVALIDUTF8;
    if ((c == 0xF0 && str[0] < 0x90) || (c == 0xF4 && str[0] > 0x8F)) return UTF8PROC_ERROR_INVALIDUTF8;
    return *dst = ((c & 7) << 18) | ((str[0] & 0x3F) << 12) | ((str[1] & 0x3F) << 6) | (str[2] & 0x3F), 4;
}

// The UTF-8 bytes of c into dst (up to 4); returns how many (0 for no code point).
inline utf8proc_ssize_t utf8proc_encode_char(utf8proc_int32_t c, utf8proc_uint8_t* dst) {
    if (c < 0) return 0;
    if (c < 0x80) return dst[0] = utf8proc_uint8_t(c), 1;
    if (c < 0x800) return dst[0] = utf8proc_uint8_t(0xC0 + (c >> 6)), dst[1] = utf8proc_uint8_t(0x80 + (c & 0x3F)), 2;
    if (c < 0x10000) {
        dst[0] = utf8proc_uint8_t(0xE0 + (c >> 12)), dst[1] = utf8proc_uint8_t(0x80 + ((c >> 6) & 0x3F));
        return dst[2] = utf8proc_uint8_t(0x80 + (c & 0x3F)), 3;
    }
    if (c < 0x110000) {
        dst[0] = utf8proc_uint8_t(0xF0 + (c >> 18)), dst[1] = utf8proc_uint8_t(0x80 + ((c >> 12) & 0x3F));
        dst[2] = utf8proc_uint8_t(0x80 + ((c >> 6) & 0x3F));
        return dst[3] = utf8proc_uint8_t(0x80 + (c & 0x3F)), 4;
    }
    return 0;
}

// A table of ranges of code points that share a value (the tables below).
struct utf8proc_range { utf8proc_int32_t first, last; int value; };

// The value of the range holding c, or `otherwise` when none does (the ranges sorted, apart).
inline int utf8proc_range_value(const utf8proc_range* ranges, size_t count, utf8proc_int32_t c, int otherwise) {
    size_t lo = 0, hi = count;
    while (lo < hi) {  // the first range that ends at or after c
        const size_t mid = (lo + hi) / 2;
        if (ranges[mid].last < c) lo = mid + 1; else hi = mid;
    }
    return lo < count && ranges[lo].first <= c ? ranges[lo].value : otherwise;
}

// Columns a terminal gives code point c: 1 but in the ranges of the table.
inline int utf8proc_charwidth(utf8proc_int32_t c) {
    static const utf8proc_range ranges[] = {
#include "utf8proc_widths.inc"
    };
    return utf8proc_range_value(ranges, sizeof ranges / sizeof ranges[0], c, 1);
}

// Unicode's general categories, numbered as utf8proc numbers them.
typedef enum {
    UTF8PROC_CATEGORY_CN = 0, UTF8PROC_CATEGORY_LU = 1, UTF8PROC_CATEGORY_LL = 2, UTF8PROC_CATEGORY_LT = 3,
    UTF8PROC_CATEGORY_LM = 4, UTF8PROC_CATEGORY_LO = 5, UTF8PROC_CATEGORY_MN = 6, UTF8PROC_CATEGORY_MC = 7,
    UTF8PROC_CATEGORY_ME = 8, UTF8PROC_CATEGORY_ND = 9, UTF8PROC_CATEGORY_NL = 10, UTF8PROC_CATEGORY_NO = 11,
    UTF8PROC_CATEGORY_PC = 12, UTF8PROC_CATEGORY_PD = 13, UTF8PROC_CATEGORY_PS = 14, UTF8PROC_CATEGORY_PE = 15,
    UTF8PROC_CATEGORY_PI = 16, UTF8PROC_CATEGORY_PF = 17, UTF8PROC_CATEGORY_PO = 18, UTF8PROC_CATEGORY_SM = 19,
    UTF8PROC_CATEGORY_SC = 20, UTF8PROC_CATEGORY_SK = 21, UTF8PROC_CATEGORY_SO = 22, UTF8PROC_CATEGORY_ZS = 23,
    UTF8PROC_CATEGORY_ZL = 24, UTF8PROC_CATEGORY_ZP = 25, UTF8PROC_CATEGORY_CC = 26, UTF8PROC_CATEGORY_CF = 27,
    UTF8PROC_CATEGORY_CS = 28, UTF8PROC_CATEGORY_CO = 29
} utf8proc_category_t;

// Code point c's category: Cn (unassigned) but in the ranges of the table.
inline utf8proc_category_t utf8proc_category(utf8proc_int32_t c) {
    static const utf8proc_range ranges[] = {
#include "utf8proc_categories.inc"
    };
    return utf8proc_category_t(utf8proc_range_value(ranges, sizeof ranges / sizeof ranges[0], c, UTF8PROC_CATEGORY_CN));
}
