// Viridis: a sequential, perceptually uniform colour scale that colour-blind
// readers can read, from dark purple (low) to yellow (high). The terminal
// shading and the pictures use this same scale.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

struct Rgb {
    std::uint8_t r, g, b;
};

// t in [0, 1] → colour, by linear interpolation between nine anchors of viridis.
inline Rgb viridis(double t) {
    static constexpr std::array<Rgb, 9> anchors{{{68, 1, 84},    {72, 40, 120},  {62, 73, 137},
                                                 {49, 104, 142}, {38, 130, 142}, {31, 158, 137},
                                                 {53, 183, 121}, {110, 206, 88}, {253, 231, 37}}};
    if (!(t > 0.0)) t = 0.0;  // also catches NaN
    t = std::min(t, 1.0);
    const double position = t * (anchors.size() - 1);
    const auto lower = std::min(static_cast<std::size_t>(position), anchors.size() - 2);
    const double f = position - static_cast<double>(lower);
    const auto mix = [f](std::uint8_t a, std::uint8_t b) {
        return static_cast<std::uint8_t>(std::lround(a + f * (b - a)));
    };
    const Rgb& a = anchors[lower];
    const Rgb& b = anchors[lower + 1];
    return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

// Dark text on the light end of the scale, light text on the dark end.
inline bool needs_dark_text(Rgb c) { return 0.299 * c.r + 0.587 * c.g + 0.114 * c.b > 140.0; }

// The ends of a matrix's scale: its smallest and largest finite values
// (infinities and NaN, e.g. a −inf mask, are left out; {inf, −inf} when none is finite).
template <class Values>
std::pair<float, float> finite_range(const Values& values) {
    float low = std::numeric_limits<float>::infinity();
    float high = -low;
    for (const float v : values)
        if (std::isfinite(v)) low = std::min(low, v), high = std::max(high, v);
    return {low, high};
}

// Where v sits on the scale from low (0) to high (1); the middle when low = high.
inline double scale_position(double v, double low, double high) {
    return high > low ? (v - low) / (high - low) : 0.5;
}
