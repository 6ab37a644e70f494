// Where float32 runs out: the smallest numbers an exp(−x) can still be.
//
//   smallest normal      2^−126 ≈ 1.18e-38 ≈ e^−87.3    std::numeric_limits<float>::min()
//   smallest subnormal   2^−149 ≈ 1.4e-45  ≈ e^−103.3   std::numeric_limits<float>::denorm_min()
//
// Between the two, a float is subnormal: it is not 0, but keeps fewer significant
// bits the smaller it gets (exp(−95) ≈ 5.5e-42 keeps about 12 of 24). Below half
// the smallest subnormal (x beyond about 104) exp(−x) rounds to 0.
#pragma once

enum class Float32Range {
    normal,     // at least 2^−126 in size: all 24 significant bits
    subnormal,  // not 0, smaller than 2^−126: fewer significant bits
    zero,       // exactly 0
};

// Which range |value| falls in (0 → zero).
Float32Range float32_range(float value);

// The x for which e^−x is the smallest normal float (87.34) and the smallest subnormal (103.28).
double exp_gap_of_smallest_normal();
double exp_gap_of_smallest_subnormal();
