#include "common/numbers/float32_range.hpp"

#include <cmath>
#include <limits>

Float32Range float32_range(float value) {
    if (value == 0.0f) return Float32Range::zero;
    return std::abs(value) < std::numeric_limits<float>::min() ? Float32Range::subnormal : Float32Range::normal;
}

double exp_gap_of_smallest_normal() { return -std::log(double(std::numeric_limits<float>::min())); }
double exp_gap_of_smallest_subnormal() { return -std::log(double(std::numeric_limits<float>::denorm_min())); }
