#include "common/training/training_progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <vector>

#include <fmt/format.h>

namespace {

// The terminal's line, shared by the trainings that run at once (one a thread: chapters 19
// and 20), each its own part: "training MHA: step 340/1000 · training MQA: step 200/1000".
// A training that ends leaves its last part on a line of its own, above the others'.
struct SharedLine {
    std::mutex mutex;
    std::vector<std::pair<const void*, std::string>> parts;  // the running trainings', in start order
    std::size_t shown = 0;                                    // characters of the line on screen

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
        if (!line.empty() || !ended) write(parts.size() > 1 ? fitted(line) : line, false);
    }

    // Several trainings' parts in at most 79 characters, the last "…" when cut: a line longer
    // than the terminal would wrap, and "\r" goes back to the start of its last row only.
    static std::string fitted(const std::string& line) {
        constexpr std::size_t most = 79;
        std::size_t count = 0, i = 0;
        for (; i < line.size(); ++i)
            if (starts_character(line[i]) && ++count > most - 1) break;
        return i < line.size() ? line.substr(0, i) + "…" : line;
    }

    // UTF-8: a byte that is not a continuation byte starts a character (each of this line's
    // characters takes one column: letters, digits, "·" and "…").
    static bool starts_character(char byte) { return (static_cast<unsigned char>(byte) & 0xc0) != 0x80; }
    static std::size_t characters(const std::string& text) {
        std::size_t count = 0;
        for (const char byte : text) count += starts_character(byte);
        return count;
    }

    // Over the line on screen (spaces over what is left of a longer one); a new line after it
    // when it is done.
    void write(const std::string& text, bool done) {
        const std::size_t length = characters(text);
        fmt::print(stderr, "\r{}{}{}", text, std::string(shown > length ? shown - length : 0, ' '), done ? "\n" : "");
        shown = done ? 0 : length;
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
        // in the browser: a line a step, which the page's progress bar reads (explorer/live_progress.js)
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
