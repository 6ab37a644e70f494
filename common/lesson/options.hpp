// A chapter's flags, each declared once: its name, the variable it fills (whose value
// is the default), its help, and the values it allows. From that one declaration come
// the check that refuses another value, the range in --help, and --list-options:
//
//   lesson.option("--d-k", d_k, "width of a head's queries and keys", Range{1, 64});
//   lesson.option("--temperature", T, "T in softmax(scores / T)", Range{0, no_limit, Range::low_excluded});
//   lesson.option("--init", init, "the initial weights", Choices{"xavier", "gpt2"});
//   lesson.option("--w-q", w_q_path, "your own W_Q instead of data/projections/W_Q.csv", Text::path);
//   lesson.option("--seed", seed, "seed of the random weights");        // any whole number
//   lesson.flag("--measure", measure, "also time the steps (output varies)");
//
// --help prints the range after the help, in words: "; 1 to 64", "; more than 0". A
// number's type name is its variable's: INT (int), UINT (std::size_t, std::uint64_t),
// FLOAT (float, double); a text's is PATH, DIR, NAME or TEXT (common/lesson/flag_values.hpp
// refuses an empty path, "1,5" for 1.5, and the like, before the range is tried).
//
// The command line is parsed by CLI11, in options.cpp only: its templates are heavy, and
// every chapter's lesson would compile them again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

// The values a number flag allows, both ends included unless said: Range{1, 64}.
struct Range {
    enum Low { low_included, low_excluded };
    double low = 0.0, high = 0.0;
    Low low_end = low_included;  // low_excluded: more than `low` ("T > 0")
};
inline constexpr double no_limit = std::numeric_limits<double>::infinity();  // a Range's high end

// The words a flag allows (a number flag's too: Choices{"1", "2", "4"}).
struct Choices {
    std::vector<std::string> words;
    Choices(std::initializer_list<std::string> list) : words(list) {}
    explicit Choices(std::vector<std::string> list) : words(std::move(list)) {}
};

// What a text flag holds, and so its type name in --help.
enum class Text { text, name, path, dir };

// One declared flag, as --help and --list-options describe it.
class Option {
public:
    // --help and --list-options show no default: the chapter finds one when the flag is not given.
    Option& without_default();
    // Refuses the flag given together with `other` (declared before), naming both.
    Option& excludes(const std::string& other);
    // On the page, a button beside this count that adds one to it and reruns the step `step`
    // alone (chapter 22's "next token" beside --generate), and "play", which presses it on.
    Option& one_more(const std::string& button, const std::string& step);

    std::string name, type, help;      // type: INT, UINT, FLOAT, PATH, DIR, NAME, TEXT; FLAG for a flag
    std::string default_text;          // as --help shows it; "" for none
    std::optional<Range> range;
    std::vector<std::string> choices;
    bool frame = false;                // every chapter has it (--dump, --step, …)
    std::string one_more_button, one_more_step;  // the page's button (one_more); "" for none

private:
    friend class CommandLine;
    CLI::Option* cli_ = nullptr;
    CLI::App* app_ = nullptr;
};

class CommandLine {
public:
    CommandLine(const std::string& title, const std::string& program);
    ~CommandLine();
    CommandLine(const CommandLine&) = delete;
    CommandLine& operator=(const CommandLine&) = delete;

    Option& add(const std::string& name, int& value, const std::string& help, std::optional<Range> range = {});
    Option& add(const std::string& name, std::size_t& value, const std::string& help, std::optional<Range> range = {});
#if SIZE_MAX < UINT64_MAX  // WebAssembly: size_t has 32 bits, a seed 64
    Option& add(const std::string& name, std::uint64_t& value, const std::string& help, std::optional<Range> range = {});
#endif
    Option& add(const std::string& name, float& value, const std::string& help, std::optional<Range> range = {});
    Option& add(const std::string& name, double& value, const std::string& help, std::optional<Range> range = {});
    Option& add(const std::string& name, int& value, const std::string& help, const Choices& choices);
    Option& add(const std::string& name, std::size_t& value, const std::string& help, const Choices& choices);
    Option& add(const std::string& name, std::string& value, const std::string& help, const Choices& choices);
    Option& add(const std::string& name, std::string& value, const std::string& help, Text kind = Text::text);
    Option& add(const std::string& name, std::vector<std::string>& words, const std::string& help);  // TEXT …
    Option& add_flag(const std::string& name, bool& value, const std::string& help);
    // The options added so far are the frame's (every chapter has them); --list-options leaves them out.
    void frame_ends();

    // Parses the command line. Returns the exit code when the program should stop now: 0
    // after --help (its lines wrapped at `line_width` columns), 2 after a bad flag (its one
    // line printed on stderr, naming it and what it expects).
    std::optional<int> parse(int argc, char** argv, std::size_t line_width);
    // Whether the flag `name` was on the command line.
    bool given(const std::string& name) const;
    // The chapter's options (not the frame's) as one JSON document, for --list-options and the
    // page; `more_fields` (", \"name\": value, …") go into it after the options.
    std::string json(const std::string& more_fields = "") const;
    // The chapter's flags (not the frame's) this run was given, as a JSON list of words:
    // ["--d-k", "8", "--causal"] (the page starts its knobs from them, explorer/live/live_start.js).
    std::string given_json() const;
    // Whether the chapter declares the flag `name`.
    bool declares(const std::string& name) const;

private:
    Option& declared(CLI::Option* option, const std::string& help, std::optional<Range> range);
    Option& chosen(Option& o, const Choices& choices);

    std::string program_;
    std::unique_ptr<CLI::App> app_;
    std::deque<Option> options_;  // a deque: the Option& handed out stay valid
};
