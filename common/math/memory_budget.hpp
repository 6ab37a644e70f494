// How much memory a computation needs, and whether this machine can spare it,
// decided BEFORE anything is allocated: a length whose n × n score matrix would
// not fit is refused with a message, never attempted and then killed.
//
//   std::uint64_t need = bytes_of_floats({n, n});          // the score matrix
//   if (!fits_in_memory(need, memory_limit_bytes())) …     // refuse, say why
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

// Bytes of a float32 array with these extents; saturates at UINT64_MAX instead
// of wrapping, so an absurd length is refused rather than looking small.
std::uint64_t bytes_of_floats(std::initializer_list<std::uint64_t> extents);

// a + b, saturating like bytes_of_floats.
std::uint64_t add_bytes(std::uint64_t a, std::uint64_t b);

// MemAvailable from /proc/meminfo; else free pages × page size (sysconf).
std::uint64_t available_memory_bytes();

// What one program may take: half of what is available, leaving the rest to
// the system and to whatever else runs; or TUTORIAL_MEMORY_LIMIT bytes when that
// is set (to see, on a big machine, what a small one refuses).
std::uint64_t memory_limit_bytes();

bool fits_in_memory(std::uint64_t needed, std::uint64_t limit);

// Throws InputError "<what> would need X, more than the Y this machine can spare"
// when needed > limit.
void require_memory(const std::string& what, std::uint64_t needed, std::uint64_t limit);

// "512 B", "4.0 KiB", "16.0 MiB", "37.3 GiB", "1.2 PiB"
std::string format_bytes(std::uint64_t bytes);

// This process's peak resident memory (VmHWM) and current one (VmRSS) from
// /proc/self/status, in bytes; 0 where /proc is not available.
std::uint64_t peak_resident_bytes();
std::uint64_t current_resident_bytes();
