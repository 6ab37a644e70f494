// What this machine can spare, and what this process holds: the system's answers
// (/proc, sysconf), which the lesson asks before it lets the mathematics allocate.
//
//   require_memory("--max-n 65536", bytes_of_floats({n, n}), memory_limit_bytes());
#pragma once

#include <cstdint>
#include <string>

#include "common/numbers/memory_budget.hpp"

// MemAvailable from /proc/meminfo; else free pages × page size (sysconf).
std::uint64_t available_memory_bytes();

// What one program may take: half of what is available, leaving the rest to
// the system and to whatever else runs; or TUTORIAL_MEMORY_LIMIT bytes when that
// is set (to see, on a big machine, what a small one refuses).
std::uint64_t memory_limit_bytes();

// Throws InputError "<what> would need X, more than the Y this machine can spare"
// when needed > limit.
void require_memory(const std::string& what, std::uint64_t needed, std::uint64_t limit);

// "512 B", "4.0 KiB", "16.0 MiB", "37.3 GiB", "1.2 PiB"
std::string format_bytes(std::uint64_t bytes);

// This process's peak resident memory (VmHWM) and current one (VmRSS) from
// /proc/self/status, in bytes; 0 where /proc is not available.
std::uint64_t peak_resident_bytes();
std::uint64_t current_resident_bytes();

// For a program that trains: the allocator keeps a training step's large buffers for the next
// step instead of mapping them anew and giving them back each time (glibc's mallopt).
void reuse_training_buffers();
