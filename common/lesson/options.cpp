#include "common/lesson/options.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/display/fit_width.hpp"
#include "common/lesson/flag_values.hpp"

namespace {

bool is_whole(const std::string& type) { return type == "INT" || type == "UINT"; }

// An end of a range as --help writes it: whole numbers without a point.
std::string end_text(double end, const std::string& type) {
    return is_whole(type) ? fmt::format("{}", static_cast<long long>(end)) : fmt::format("{}", end);
}

// "1 to 64", "more than 0, at most 1", "at least 1", "more than 0".
std::string range_words(const Range& r, const std::string& type) {
    const bool open_high = std::isinf(r.high);
    if (r.low_end == Range::low_included)
        return open_high ? "at least " + end_text(r.low, type) : end_text(r.low, type) + " to " + end_text(r.high, type);
    return "more than " + end_text(r.low, type) + (open_high ? "" : ", at most " + end_text(r.high, type));
}

// A value (already checked to be a number of its type by flag_values) inside the range?
// A float flag compares in float: 1e-4 given is the float nearest 1e-4, as the end is.
bool in_range(double value, const Range& r, const std::string& type) {
    double low = r.low, high = r.high;
    if (type == "FLOAT") value = float(value), low = float(low), high = std::isinf(high) ? high : float(high);
    const bool above_low = r.low_end == Range::low_included ? value >= low : value > low;
    return above_low && value <= high;
}

// --help, written here rather than by CLI11, so that it reads the same whichever CLI11 the
// system has (the docs show it): CLI11 2.1–2.3 write a default as "UINT=0", 2.4 as "UINT [0] ".
// The layout is CLI11's own: the title, the usage, then a line per flag, its help from column 31,
// wrapped to fit `line_width` columns (a terminal's, or 100).
std::string help_text(const CLI::App& app, std::size_t line_width) {
    constexpr std::size_t help_column = 30;
    std::string out = fmt::format("{}\nUsage: {} [OPTIONS]\n\nOptions:\n", app.get_description(), app.get_name());
    for (const CLI::Option* option : app.get_options()) {
        std::string left = "  " + option->get_name(false, true);
        std::string choices;  // "TEXT:{a,b,c}" too wide for a line: its choices go with the help
        if (option->get_type_size() != 0) {
            std::string type = option->get_type_name();
            const std::size_t brace = type.find(":{");
            if (brace != std::string::npos && left.size() + type.size() > line_width) {
                for (const char c : type.substr(brace + 2, type.size() - brace - 3))
                    choices += c == ',' ? std::string(", ") : std::string(1, c);
                choices = "; one of " + choices;
                type.erase(brace);
            }
            if (!type.empty()) left += " " + type;
            if (!option->get_default_str().empty()) left += "=" + option->get_default_str();
            if (option->get_expected_max() > 1) left += " ...";  // a flag that takes several words
        }
        if (!option->get_excludes().empty()) {
            left += " Excludes:";
            for (const CLI::Option* other : option->get_excludes()) left += " " + other->get_name();
        }
        out += left;
        const std::string help = option->get_description() + choices;
        if (!help.empty()) {
            out += left.size() < help_column ? std::string(help_column - left.size(), ' ')
                                             : "\n" + std::string(help_column, ' ');
            const std::size_t help_width = std::max<std::size_t>(line_width, help_column + 30) - help_column;
            for (const char c : wrap_to_width(help, help_width)) {  // every line of it keeps its column
                out += c;
                if (c == '\n') out.append(help_column, ' ');
            }
        }
        out += '\n';
    }
    return out + '\n';
}

// What a flag takes, in words: "one of mha, mqa, gqa", "a whole number, 1 to 64".
std::string expected_value(const Option& o) {
    if (!o.choices.empty()) return fmt::format("one of {}", fmt::join(o.choices, ", "));
    const std::string range = o.range ? ", " + range_words(*o.range, o.type) : "";
    if (is_whole(o.type)) return "a whole number" + range;
    if (o.type == "FLOAT") return "a number" + range;
    if (o.type == "PATH") return "a file's path";
    if (o.type == "DIR") return "a folder";
    if (o.type == "NAME") return "a name";
    return "a text (in quotes when it holds spaces: \"the cat sat\")";
}

// CLI11's words for a bad command line ("At Most 1 required but received 2", "1 required TEXT
// missing", "The following arguments were not expected: …") in the tutorial's: the flag or the
// word, then what was expected. `args` are the words after the program's name.
std::string plain_error(const CLI::ParseError& e, const std::deque<Option>& options, const std::vector<std::string>& args,
                        const CLI::App& app) {
    const std::string message = e.what();
    const auto declared = [&](const std::string& name) -> const Option* {
        for (const Option& o : options)
            if (o.name == name) return &o;
        return nullptr;
    };
    if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {  // "--steps: …": given twice, or no value
        const Option* o = declared(message.substr(0, message.find(':')));
        if (o) {
            const auto times = std::count_if(args.begin(), args.end(), [&](const std::string& a) {
                return a == o->name || a.rfind(o->name + "=", 0) == 0;
            });
            if (times > 1) return fmt::format("{}: given {} times; give it once", o->name, times);
            return fmt::format("{}: no value after it; expected {}", o->name, expected_value(*o));
        }
    }
    if (dynamic_cast<const CLI::ValidationError*>(&e) && message.find(" not in {") != std::string::npos) {
        const Option* o = declared(message.substr(0, message.find(':')));  // "--variant: mqaa not in {…}"
        const std::size_t value = o ? o->name.size() + 2 : 0;
        if (o && !o->choices.empty())
            return fmt::format("{}: '{}' is not {}", o->name, message.substr(value, message.find(" not in {") - value),
                               expected_value(*o));
    }
    if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
        // the words no flag took (CLI11 keeps them), else every word given
        const std::vector<std::string> left = app.remaining().empty() ? args : app.remaining();
        for (const std::string& arg : left) {
            if (arg == "--") break;
            const bool flag_like = arg.size() > 1 && arg[0] == '-' && !std::isdigit(static_cast<unsigned char>(arg[1]));
            const std::string name = arg.substr(0, arg.find('='));
            if (flag_like && !declared(name)) return fmt::format("{}: no such flag{}", name, did_you_mean(app, {arg}));
        }
        if (!app.remaining().empty())
            return fmt::format("'{}': a word that follows no flag (a flag takes one value; a sentence goes in quotes: "
                               "--text \"the cat sat\")", left.front());
    }
    std::string plain = message;
    std::replace(plain.begin(), plain.end(), '\n', ' ');
    return plain;
}

}  // namespace

Option& Option::without_default() {
    default_text.clear();
    cli_->default_str("");
    return *this;
}

Option& Option::one_more(const std::string& button, const std::string& step) {
    one_more_button = button, one_more_step = step;
    return *this;
}

Option& Option::excludes(const std::string& other) {
    cli_->excludes(app_->get_option(other));
    return *this;
}

CommandLine::CommandLine(const std::string& title, const std::string& program)
    : program_(program), app_(std::make_unique<CLI::App>(title, program)) {}

CommandLine::~CommandLine() = default;

// Records the option CLI11 now knows, with the help and check that its range gives it.
Option& CommandLine::declared(CLI::Option* option, const std::string& help, std::optional<Range> range) {
    Option& o = options_.emplace_back();
    o.cli_ = option, o.app_ = app_.get();
    o.name = option->get_name();
    o.help = help;
    o.range = range;
    if (option->get_items_expected_max() == 0) {
        o.type = "FLAG";
        return o;
    }
    option->capture_default_str();
    o.default_text = option->get_default_str();
    o.type = option->get_type_name();
    if (range) {
        const std::string type = o.type, words = range_words(*range, type);
        option->description(help + "; " + words);
        option->check(CLI::Validator(
            [type, words, r = *range](std::string& value) {
                return in_range(std::strtod(value.c_str(), nullptr), r, type)
                           ? std::string()
                           : "'" + value + "' is out of range: expected " + words;
            },
            ""));
    }
    return o;
}

// The words an option allows, checked by CLI11 (its --help shows them after the type name).
Option& CommandLine::chosen(Option& o, const Choices& choices) {
    o.cli_->check(CLI::IsMember(choices.words));
    o.choices = choices.words;
    return o;
}

Option& CommandLine::add(const std::string& name, int& value, const std::string& help, std::optional<Range> range) {
    return declared(app_->add_option(name, value, help)->type_name("INT"), help, range);
}

Option& CommandLine::add(const std::string& name, std::size_t& value, const std::string& help,
                     std::optional<Range> range) {
    return declared(app_->add_option(name, value, help)->type_name("UINT"), help, range);
}

#if SIZE_MAX < UINT64_MAX
Option& CommandLine::add(const std::string& name, std::uint64_t& value, const std::string& help,
                         std::optional<Range> range) {
    return declared(app_->add_option(name, value, help)->type_name("UINT"), help, range);
}
#endif

Option& CommandLine::add(const std::string& name, float& value, const std::string& help, std::optional<Range> range) {
    return declared(app_->add_option(name, value, help)->type_name("FLOAT"), help, range);
}

Option& CommandLine::add(const std::string& name, double& value, const std::string& help, std::optional<Range> range) {
    return declared(app_->add_option(name, value, help)->type_name("FLOAT"), help, range);
}

Option& CommandLine::add(const std::string& name, int& value, const std::string& help, const Choices& choices) {
    return chosen(declared(app_->add_option(name, value, help)->type_name("INT"), help, {}), choices);
}

Option& CommandLine::add(const std::string& name, std::size_t& value, const std::string& help,
                         const Choices& choices) {
    return chosen(declared(app_->add_option(name, value, help)->type_name("UINT"), help, {}), choices);
}

Option& CommandLine::add(const std::string& name, std::string& value, const std::string& help,
                         const Choices& choices) {
    return chosen(declared(app_->add_option(name, value, help)->type_name("TEXT"), help, {}), choices);
}

Option& CommandLine::add(const std::string& name, std::string& value, const std::string& help, Text kind) {
    const char* type = kind == Text::path ? "PATH" : kind == Text::dir ? "DIR" : kind == Text::name ? "NAME" : "TEXT";
    return declared(app_->add_option(name, value, help)->type_name(type), help, {});
}

Option& CommandLine::add(const std::string& name, std::vector<std::string>& words, const std::string& help) {
    return declared(app_->add_option(name, words, help)->type_name("TEXT"), help, {}).without_default();  // not "[]"
}

Option& CommandLine::add_flag(const std::string& name, bool& value, const std::string& help) {
    return declared(app_->add_flag(name, value, help), help, {});
}

void CommandLine::frame_ends() {
    for (Option& o : options_) o.frame = true;
}

std::optional<int> CommandLine::parse(int argc, char** argv, std::size_t line_width) {
    try {
        check_flag_values(*app_);
        const std::vector<std::string> args = split_empty_values(*app_, argc, argv);
        std::vector<const char*> pointers;
        for (const std::string& arg : args) pointers.push_back(arg.c_str());
        app_->parse(int(pointers.size()), pointers.data());
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) {  // --help
            fmt::print("{}", help_text(*app_, line_width));
            return 0;
        }
        const std::vector<std::string> given(argv + std::min(argc, 1), argv + argc);
        fmt::print(stderr, "{}: {} (see --help)\n", program_, plain_error(e, options_, given, *app_));
        return 2;
    }
    return std::nullopt;
}

bool CommandLine::given(const std::string& name) const { return app_->count(name) > 0; }

bool CommandLine::declares(const std::string& name) const {
    for (const Option& o : options_)
        if (o.name == name) return true;
    return false;
}

std::string CommandLine::given_json() const {
    std::string words;
    const auto add = [&](const std::string& word) { words += fmt::format("{}{:?}", words.empty() ? "" : ", ", word); };
    for (const Option& o : options_) {
        if (o.frame || app_->count(o.name) == 0) continue;
        add(o.name);
        if (o.type != "FLAG")
            for (const std::string& value : o.cli_->results()) add(value);
    }
    return "[" + words + "]";
}

// One option a line; texts as JSON strings ({:?} escapes quotes, backslashes and line ends).
std::string CommandLine::json(const std::string& more_fields) const {
    std::string lines;
    for (const Option& o : options_) {
        if (o.frame) continue;
        const bool number = o.type == "INT" || o.type == "UINT" || o.type == "FLOAT";
        std::string line = fmt::format("    {{\"name\": {:?}, \"type\": {:?}, \"default\": ", o.name, o.type);
        if (o.type == "FLAG") line += "false";
        else if (o.default_text.empty()) line += "null";
        else line += number ? o.default_text : fmt::format("{:?}", o.default_text);
        if (o.range)
            line += fmt::format(", \"range\": {{\"low\": {}, \"high\": {}, \"low_included\": {}}}",
                                end_text(o.range->low, o.type),
                                std::isinf(o.range->high) ? "null" : end_text(o.range->high, o.type),
                                o.range->low_end == Range::low_included);
        if (!o.choices.empty()) {
            std::string words;
            for (const std::string& w : o.choices) words += fmt::format("{}{:?}", words.empty() ? "" : ", ", w);
            line += ", \"choices\": [" + words + "]";
        }
        if (!o.one_more_button.empty())
            line += fmt::format(", \"one_more\": {{\"button\": {:?}, \"step\": {:?}}}", o.one_more_button, o.one_more_step);
        line += fmt::format(", \"help\": {:?}}}", o.help);
        lines += (lines.empty() ? "" : ",\n") + line;
    }
    return fmt::format("{{\"program\": {:?}, \"options\": [\n{}\n]{}}}\n", program_, lines, more_fields);
}
