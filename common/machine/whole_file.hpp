// A file's bytes, read in large blocks: a character at a time (std::istreambuf_iterator) took
// a tenth of a second for a checkpoint in the browser's build.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

// Every byte up to the end of the file; nothing when it cannot be opened or a read fails.
std::optional<std::string> whole_file(const std::filesystem::path& file);
