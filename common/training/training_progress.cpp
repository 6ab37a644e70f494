#include "common/training/training_progress.hpp"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

Progress training_progress(const std::string& what, std::function<std::string(int step, const LoggedStep&)> detail) {
    const bool terminal = isatty(STDERR_FILENO);
    return [what, detail, terminal](int step, int steps, const LoggedStep& row) {
#if defined(__EMSCRIPTEN__)
        // in the browser: a line a step, which the page's progress bar reads (explorer/live_progress.js)
        if (step > 0) fmt::print(stderr, "{}: step {}/{}\n", what, step, steps);
        return;
#endif
        if (terminal)
            fmt::print(stderr, "\r{}: step {}/{}{}{}", what, step, steps, detail ? "  " + detail(step, row) : "",
                       step == steps ? "\n" : "");
        else if (step == 0)
            fmt::print(stderr, "{}: {} steps\n", what, steps);
    };
}
