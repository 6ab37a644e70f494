// How much memory a computation needs, counted BEFORE anything is allocated: a length
// whose n × n score matrix would not fit is refused with a message, never attempted and
// then killed. (What this machine can spare is asked in common/machine/machine_memory.hpp:
// the mathematics counts, the lesson asks the system.)
//
//   std::uint64_t need = bytes_of_floats({n, n});          // the score matrix
//   if (!fits_in_memory(need, limit)) …                    // refuse, say why
#pragma once

#include <cstdint>
#include <initializer_list>

// Bytes of a float32 array with these extents; saturates at UINT64_MAX instead
// of wrapping, so an absurd length is refused rather than looking small.
std::uint64_t bytes_of_floats(std::initializer_list<std::uint64_t> extents);

// a + b and a · b, saturating like bytes_of_floats.
std::uint64_t add_bytes(std::uint64_t a, std::uint64_t b);
std::uint64_t multiply_bytes(std::uint64_t a, std::uint64_t b);

bool fits_in_memory(std::uint64_t needed, std::uint64_t limit);
