#include "common/numbers/memory_budget.hpp"

#include <limits>

namespace {

constexpr std::uint64_t saturated = std::numeric_limits<std::uint64_t>::max();

}  // namespace

std::uint64_t multiply_bytes(std::uint64_t a, std::uint64_t b) {
    if (a != 0 && b > saturated / a) return saturated;
    return a * b;
}

std::uint64_t bytes_of_floats(std::initializer_list<std::uint64_t> extents) {
    std::uint64_t bytes = sizeof(float);
    for (const std::uint64_t e : extents) bytes = multiply_bytes(bytes, e);
    return bytes;
}

std::uint64_t add_bytes(std::uint64_t a, std::uint64_t b) { return a > saturated - b ? saturated : a + b; }

bool fits_in_memory(std::uint64_t needed, std::uint64_t limit) { return needed <= limit; }
