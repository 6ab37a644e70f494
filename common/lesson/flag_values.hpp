// What a flag's value must look like, checked before CLI11 converts it, so that
// a value the learner did not mean is refused naming the flag and saying why:
//
//   --temperature 1,5   '1,5' is not a number (write 1.5: the decimal separator is a point)
//   --prefill abc       'abc' is not a number
//   --n 1.5             '1.5' is not a whole number
//   --input ""          '': an empty path; expected a file name
//
// Left to CLI11, a number flag with a range says "Value abc not in range 0 to
// 100000" (the range is tried first), "010" is read as octal 8 and "0x10" as 16,
// "-1" in an unsigned flag becomes 2^64 − 1, "nan" passes every range (each
// comparison with NaN is false), a float of 1e39 becomes inf, and `--input=`
// takes the next argument as its value.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

// Gives every option of `app` that takes a value the check of its kind, which
// runs before the option's own checks. The kind is the option's type name:
// INT, UINT, FLOAT (numbers), PATH, DIR (paths), TEXT or NAME (words). Throws
// std::logic_error for another type name: a number flag keeps CLI11's name, or
// its values would go unchecked.
void check_flag_values(CLI::App& app);

// What is wrong with `value` for a flag of the kind `kind` (as above), or "" when
// nothing is. A number is tidied in place: spaces around it, and the leading
// zeros of a whole number ("010" is 10).
std::string flag_value_problem(const std::string& kind, std::string& value);

// The command line with every `--name=` of an option that takes a value split
// into `--name` and an empty value, which the check above refuses naming the
// flag (CLI11 would take the next argument as the value).
std::vector<std::string> split_empty_values(const CLI::App& app, int argc, const char* const* argv);

// For a command line that holds a flag `app` does not know: " (did you mean --heads?)" when
// that flag is a beginning or a near-miss (a letter off; two, from five letters on) of a real one, the
// nearest named (two equally near: both); "" otherwise. (`--head 2` in a chapter that has
// --heads: CLI11 alone says "The following arguments were not expected: 2 --head".)
std::string did_you_mean(const CLI::App& app, const std::vector<std::string>& args);
