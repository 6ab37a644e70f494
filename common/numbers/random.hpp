// A small random generator the project owns, so that the same seed gives the
// same numbers on every machine. (std::normal_distribution is implementation-
// defined: libstdc++ and libc++ give different numbers for the same seed.)
#pragma once

#include <cmath>
#include <cstdint>

#include "common/numbers/matrix.hpp"

class Random {
public:
    explicit Random(std::uint64_t seed) : state_(seed) {}

    // splitmix64: a tiny generator with good statistics, fully specified.
    std::uint64_t next_u64() {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }

    // Uniform in [0, 1), from the top 53 bits.
    double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

    // Standard normal by the Box–Muller transform, in double, rounded to float.
    float normal() {
        const double u1 = 1.0 - uniform();  // in (0, 1], so log(u1) is finite
        const double u2 = uniform();
        return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2));
    }

    // A (rows × cols) matrix of normal samples with the given standard deviation.
    Matrix normal_matrix(std::size_t rows, std::size_t cols, float stddev = 1.0f) {
        Matrix m = Matrix::from_shape({rows, cols});
        for (auto& x : m) x = stddev * normal();
        return m;
    }

private:
    std::uint64_t state_;
};
