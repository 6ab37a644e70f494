#include "common/machine/cores.hpp"

#include <algorithm>
#include <thread>

std::size_t training_threads(std::size_t asked) {
    if (asked > 0) return asked;
    const std::size_t cores = std::thread::hardware_concurrency();  // 0 when unknown
    return std::clamp<std::size_t>(cores, 1, 8);
}
