// What a piece of code writes to stdout, for tests of printed text.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <functional>
#include <string>

#include <doctest/doctest.h>

inline std::string printed_by(const std::function<void()>& print) {
    std::fflush(stdout);
    std::FILE* file = std::tmpfile();
    REQUIRE(file != nullptr);
    const int saved = dup(fileno(stdout));
    dup2(fileno(file), fileno(stdout));
    print();
    std::fflush(stdout);
    dup2(saved, fileno(stdout));
    close(saved);
    std::rewind(file);
    std::string text;
    for (int c = std::fgetc(file); c != EOF; c = std::fgetc(file)) text += char(c);
    std::fclose(file);
    return text;
}
