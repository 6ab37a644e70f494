#include "common/machine/measure_in_child.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <limits>
#include <stdexcept>

#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/machine/machine_memory.hpp"

double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

namespace {

// The peak (VmHWM) starts at the resident memory of the moment: without this,
// a child keeps its parent's peak from before malloc_trim. (Linux ≥ 4.0; where
// it is refused, the peak is only less exact.)
void reset_peak_resident() {
    if (std::FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
        std::fputs("5", f);
        std::fclose(f);
    }
}

Measured run_rounds(const std::function<void()>& work) {
    // Keep what a round frees for the next round (glibc returns large blocks to
    // the operating system at once, and taking them back costs a page fault per
    // 4 KiB, which on a virtual machine can outweigh the arithmetic).
    mallopt(M_MMAP_THRESHOLD, 32 << 20);  // the largest glibc allows
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#if defined(__GLIBC__)
    malloc_trim(0);  // but not what the parent freed: the first round starts from nothing reusable
#endif
    reset_peak_resident();
    Measured m;
    const std::uint64_t before = current_resident_bytes();
    const double start = cpu_seconds();
    m.seconds = std::numeric_limits<double>::infinity();
    for (int round = 0; round < 3 && (round == 0 || cpu_seconds() - start < 0.25); ++round) {
        const double round_start = cpu_seconds();
        int calls = 0;
        do {
            work();
            ++calls;
        } while (cpu_seconds() - round_start < 0.005);
        m.seconds = std::min(m.seconds, (cpu_seconds() - round_start) / calls);
        if (round == 0) {  // the memory of the first round: later rounds may add what a
                           // sanitizer holds back from reuse, which the work never needed
            const std::uint64_t peak = peak_resident_bytes();
            m.peak_bytes = peak > before ? peak - before : 0;
        }
    }
    return m;
}

}  // namespace

Measured measure_in_child(const std::function<void()>& work) {
    int channel[2];
    std::fflush(stdout);  // or the child would print the parent's buffered text again
    if (pipe(channel) != 0) return run_rounds(work);
    const pid_t child = fork();
    if (child < 0) {
        close(channel[0]);
        close(channel[1]);
        Measured m = run_rounds(work);
        m.peak_bytes = 0;  // this process's peak holds more than the work
        return m;
    }
    if (child == 0) {
        close(channel[0]);
        const Measured m = run_rounds(work);
        const bool sent = write(channel[1], &m, sizeof m) == static_cast<ssize_t>(sizeof m);
        _exit(sent ? 0 : 1);
    }
    close(channel[1]);
    Measured m;
    const bool received = read(channel[0], &m, sizeof m) == static_cast<ssize_t>(sizeof m);
    close(channel[0]);
    int status = 0;
    waitpid(child, &status, 0);
    if (!received || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error("a measurement's child process failed (out of memory?)");
    return m;
}
