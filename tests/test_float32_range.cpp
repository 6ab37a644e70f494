// The float32 facts chapter 06 states about underflow: exp(−gap) is a normal float
// up to a gap of about 87.3, a subnormal (not 0) up to about 103.3–104, and 0 beyond.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "common/numbers/float32_range.hpp"

TEST_CASE("the smallest normal and subnormal float32 and their exp gaps") {
    CHECK(double(std::numeric_limits<float>::min()) == doctest::Approx(1.1754944e-38).epsilon(1e-6));
    CHECK(double(std::numeric_limits<float>::denorm_min()) == doctest::Approx(1.4012985e-45).epsilon(1e-6));
    CHECK(exp_gap_of_smallest_normal() == doctest::Approx(87.336).epsilon(1e-4));
    CHECK(exp_gap_of_smallest_subnormal() == doctest::Approx(103.279).epsilon(1e-4));
}

TEST_CASE("exp(−gap) in float32: normal, then subnormal but not 0, then 0") {
    CHECK(float32_range(std::exp(-80.0f)) == Float32Range::normal);
    // A gap of 95 is beyond the normal range but far from 0: exp(−95) ≈ 5.5e-42, a
    // subnormal. "far below the smallest float32" would be false here.
    const float e95 = std::exp(-95.0f);
    CHECK(e95 > 0.0f);
    CHECK(float32_range(e95) == Float32Range::subnormal);
    CHECK(double(e95) == doctest::Approx(5.52e-42).epsilon(0.01));
    CHECK(float32_range(std::exp(-103.0f)) == Float32Range::subnormal);
    CHECK(float32_range(std::exp(-105.0f)) == Float32Range::zero);
    CHECK(float32_range(0.0f) == Float32Range::zero);
    CHECK(float32_range(-1e-40f) == Float32Range::subnormal);
}
