// Time and peak memory of one piece of work, measured in a child process so
// that what the work allocates is counted from a clean start and freed with it:
//
//   const Measured m = measure_in_child([&] { materialised_attention(Q, K, V); });
//   // m.seconds: CPU seconds of one call; m.peak_bytes: the memory the call added
//
// Times are CPU seconds of the child (std::clock): with one thread they equal
// the wall-clock time on an idle machine, and other programs sharing the
// processor do not inflate them. The time is the best of up to three rounds
// (fewer when a round is long), each round the mean of as many calls as fill
// 5 ms, so a call of a few µs is not all clock noise. Anything above the best
// round is the rest of the machine getting in the way.
//
// The memory is the child's peak resident memory (VmHWM) minus its resident
// memory just before the work, in the first round. Before that, the child hands
// the free memory it inherited back to the operating system (malloc_trim), so
// the work cannot reuse pages its parent freed and look smaller than it is, and
// resets its peak to the memory it then holds. The inputs are made before the
// fork, so they are not counted.
#pragma once

#include <cstdint>
#include <functional>

struct Measured {
    double seconds = 0.0;
    std::uint64_t peak_bytes = 0;  // 0: not measured (no /proc, or the fork failed)
};

// Throws std::runtime_error when the child fails (out of memory, say).
Measured measure_in_child(const std::function<void()>& work);

// CPU seconds of this process so far.
double cpu_seconds();
