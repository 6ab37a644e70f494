#include "common/training/training_progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "common/display/fit_width.hpp"
#include "common/display/text_width.hpp"

namespace {

// The terminal's line, shared by the trainings that run at once (one a thread: chapters 19
// and 20), each its own part: "training MHA: step 340/1000 · training MQA: step 200/1000".
// A training that ends leaves its last part on a line of its own, above the others'.
struct SharedLine {
    std::mutex mutex;
    std::vector<std::pair<const void*, std::string>> parts;  // the running trainings', in start order
    std::size_t shown = 0;                                    // columns of the line on screen

    void show(const void* who, const std::string& part, bool ended) {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = parts.begin();
        while (it != parts.end() && it->first != who) ++it;
        if (it == parts.end()) it = parts.insert(parts.end(), {who, part});
        it->second = part;
        if (ended) {
            write(part, true);
            parts.erase(it);
        }
        std::string line;
        for (const auto& [_, text] : parts) line += (line.empty() ? "" : " · ") + text;
        // several trainings' parts cut to 79 columns: a longer line would wrap on the terminal, and
        // "\r" goes back to the start of its last row only
        if (!line.empty() || !ended) write(parts.size() > 1 ? cut_to_width(line, 79) : line, false);
    }

    // Over the line on screen (spaces over what is left of a longer one); a new line after it
    // when it is done.
    void write(const std::string& text, bool done) {
        fmt::print(stderr, "\r{}{}", pad_right(text, shown), done ? "\n" : "");
        shown = done ? 0 : display_width(text);
    }
};

SharedLine& shared_line() {
    static SharedLine line;
    return line;
}

}  // namespace

Progress training_progress(const std::string& what, std::function<std::string(int step, const LoggedStep&)> detail) {
    const bool terminal = isatty(STDERR_FILENO);
    const auto id = std::make_shared<char>();  // this training's part of the shared line
    return [what, detail, terminal, id](int step, int steps, const LoggedStep& row) {
#if defined(__EMSCRIPTEN__)
        // in the browser: a line a step, which the page's progress bar reads (explorer/live/live_progress.js)
        if (step > 0) fmt::print(stderr, "{}: step {}/{}\n", what, step, steps);
        return;
#endif
        if (terminal)
            shared_line().show(id.get(), fmt::format("{}: step {}/{}{}", what, step, steps,
                                                     detail ? "  " + detail(step, row) : ""),
                               step == steps);
        else if (step == 0)
            fmt::print(stderr, "{}: {} steps\n", what, steps);
    };
}
