#include "common/display/time_text.hpp"

#include "common/display/print.hpp"

std::string time_text(double s) {
    if (s < 1e-3) return format_number(s * 1e6, 1) + " µs";
    if (s < 1.0) return format_number(s * 1e3, 2) + " ms";
    return format_number(s, 2) + " s";
}
