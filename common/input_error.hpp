// A mistake in what the learner gave us: a file, a flag, a token.
// The chapter stops with one line on stderr and exit code 2.
#pragma once

#include <stdexcept>
#include <string>

struct InputError : std::runtime_error {
    explicit InputError(const std::string& message) : std::runtime_error(message) {}
};
