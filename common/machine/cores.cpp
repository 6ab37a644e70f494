#include "common/machine/cores.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>

#include "common/machine/environment.hpp"
#include "common/numbers/input_error.hpp"

std::size_t training_threads(std::size_t asked) {
    if (asked > 0) return asked;
    if (const char* given = environment(Setting::threads)) {
        char* end = nullptr;
        const long count = std::strtol(given, &end, 10);
        if (end == given || *end != '\0' || count < 1 || count > 64)
            throw InputError(std::string(environment_name(Setting::threads)) + "=" + given +
                             ": expected a whole number of threads from 1 to 64");
        return std::size_t(count);
    }
    const std::size_t cores = std::thread::hardware_concurrency();  // 0 when unknown
    return std::clamp<std::size_t>(cores, 1, 8);
}
