// Every environment variable a chapter program reads, in one place, each with who sets it and
// why. A learner sets none of them: the tools, the page and the tests do. (Besides these,
// chapter 17 reads the MPI launchers' own, OMPI_COMM_WORLD_RANK and the like, to know its rank:
// chapters/17_ring_attention/ring.cpp. The exercises' grader reads TUTORIAL_TRACE:
// grader/where_it_stopped.cpp.)
//
//   if (const char* folder = environment(Setting::trained_folder)) …   // nullptr: not set
#pragma once

enum class Setting {
    // Where trained models and kept measurements go (common/training/training_memory.hpp): the
    // page's worker sets /trained, the tests a scratch folder; unset, the user's cache folder.
    trained_folder,         // TUTORIAL_TRAINED
    // The user's cache folder (the XDG base directories: $XDG_CACHE_HOME, else $HOME/.cache),
    // where trained models are kept outside the clone, for every build and clone of this machine.
    cache_home,             // XDG_CACHE_HOME
    home,                   // HOME
    // The program's identity where /proc/self/exe is missing: the page's worker hashes the
    // WebAssembly it runs (explorer/live/live_worker.js), so that only that program reads back what it kept.
    program_fingerprint,    // TUTORIAL_PROGRAM_FINGERPRINT
    // The folder of expected matrices an exercise is graded against (grader/exercises.py).
    expected_matrices,      // TUTORIAL_EXPECT
    // A smaller machine than this one, in bytes: the tests see what a laptop would refuse.
    memory_limit,           // TUTORIAL_MEMORY_LIMIT
    // The threads a training takes when --threads does not say (common/machine/cores.hpp): the
    // test suite runs a program on each core at once, so each takes one (CMakePresets.json).
    threads,                // TUTORIAL_THREADS
    // Chapter 17: the file the launcher collects rank 0's output in, and the ranks the tests
    // make check every rank's numbers (chapters/17_ring_attention/ring.cpp).
    ring_stdout,            // TUTORIAL_STDOUT_OF
    ring_check_ranks,       // TUTORIAL_CHECK_RANKS
    // The terminal's conventions: no colour (https://no-color.org), a terminal without any,
    // the width a line may take.
    no_color,               // NO_COLOR
    terminal,               // TERM
    columns,                // COLUMNS
};

// The variable's value, or nullptr when it is not set.
const char* environment(Setting s);

// Its name, for a message about a bad value ("TUTORIAL_MEMORY_LIMIT=abc: …").
const char* environment_name(Setting s);
