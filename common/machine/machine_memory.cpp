#include "common/machine/machine_memory.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>

#include <malloc.h>
#include <unistd.h>

#include "common/machine/environment.hpp"
#include "common/numbers/input_error.hpp"

namespace {

// The value of "<key>: <number> kB" in a /proc file, in bytes; 0 if absent.
std::uint64_t proc_kib_field(const char* file, const std::string& key) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        if (line.compare(0, key.size() + 1, key + ":") != 0) continue;
        std::istringstream value(line.substr(key.size() + 1));
        std::uint64_t kib = 0;
        value >> kib;
        return multiply_bytes(kib, 1024);
    }
    return 0;
}

// $TUTORIAL_MEMORY_LIMIT, a whole number of bytes, or nullopt when it is not set.
std::optional<std::uint64_t> limit_from_environment() {
    const char* text = environment(Setting::memory_limit);
    if (text == nullptr) return std::nullopt;
    const std::string value = text;
    if (value.empty() || value.size() > 19 || value.find_first_not_of("0123456789") != std::string::npos)
        throw InputError(describe(environment_name(Setting::memory_limit), "=", value, ": expected a whole number of bytes"));
    return std::stoull(value);
}

}  // namespace

std::uint64_t available_memory_bytes() {
    if (const std::uint64_t available = proc_kib_field("/proc/meminfo", "MemAvailable")) return available;
    const long pages = sysconf(_SC_AVPHYS_PAGES);
    const long page_size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_size <= 0) return 0;
    return multiply_bytes(static_cast<std::uint64_t>(pages), static_cast<std::uint64_t>(page_size));
}

std::uint64_t memory_limit_bytes() {
    if (const auto limit = limit_from_environment()) return *limit;
    return available_memory_bytes() / 2;
}

void require_memory(const std::string& what, std::uint64_t needed, std::uint64_t limit) {
    if (!fits_in_memory(needed, limit))
        throw InputError(describe(what, " would need ", format_bytes(needed), ", more than the ", format_bytes(limit),
                                  limit_from_environment() ? " that TUTORIAL_MEMORY_LIMIT allows"
                                                           : " this machine can spare (half of its available memory)"));
}

std::string format_bytes(std::uint64_t bytes) {
    if (bytes < 1024) return describe(bytes, " B");
    static const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = static_cast<double>(bytes) / 1024.0;
    std::size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < std::size(units)) {
        value /= 1024.0;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
    return text;
}

std::uint64_t peak_resident_bytes() { return proc_kib_field("/proc/self/status", "VmHWM"); }
std::uint64_t current_resident_bytes() { return proc_kib_field("/proc/self/status", "VmRSS"); }

void reuse_training_buffers() {
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
}
