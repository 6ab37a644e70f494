// A mistake in what the learner gave us: a file, a flag, a token.
// The chapter stops with one line on stderr and exit code 2.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>

struct InputError : std::runtime_error {
    explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

// The pieces of a message run together: describe("a bias of ", 3, " for ", 4) → "a bias of 3 for 4".
// The mathematics has no formatting library; this is all its messages need.
template <typename... Pieces>
std::string describe(const Pieces&... pieces) {
    std::ostringstream text;
    (text << ... << pieces);
    return text.str();
}
