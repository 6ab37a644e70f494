// Chapter 10 · the lesson's inputs: the flags and their ranges, into the Settings of
// experiment.hpp (checked_settings then parses --pairs and checks the memory).
#pragma once

#include <CLI/CLI.hpp>

#include "chapters/10_long_sequences/experiment.hpp"

// --max-n, --d, --block-q, --block-k, --window, --pairs, --budget-s and --streaming-only.
void add_flags(CLI::App& cli, Settings& s);
