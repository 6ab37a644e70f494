#include "common/machine/environment.hpp"

#include <cstdlib>

const char* environment_name(Setting s) {
    switch (s) {
        case Setting::trained_folder: return "TUTORIAL_TRAINED";
        case Setting::cache_home: return "XDG_CACHE_HOME";
        case Setting::home: return "HOME";
        case Setting::program_fingerprint: return "TUTORIAL_PROGRAM_FINGERPRINT";
        case Setting::expected_matrices: return "TUTORIAL_EXPECT";
        case Setting::memory_limit: return "TUTORIAL_MEMORY_LIMIT";
        case Setting::threads: return "TUTORIAL_THREADS";
        case Setting::ring_stdout: return "TUTORIAL_STDOUT_OF";
        case Setting::ring_check_ranks: return "TUTORIAL_CHECK_RANKS";
        case Setting::no_color: return "NO_COLOR";
        case Setting::terminal: return "TERM";
        case Setting::columns: return "COLUMNS";
    }
    return "";
}

const char* environment(Setting s) { return std::getenv(environment_name(s)); }
