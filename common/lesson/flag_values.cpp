#include "common/lesson/flag_values.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>

namespace {

bool takes_value(const CLI::Option& option) { return option.get_items_expected_max() > 0; }

bool is_number_kind(const std::string& kind) { return kind == "INT" || kind == "UINT" || kind == "FLOAT"; }

bool all_digits(const std::string& s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string digits_of(double number) { return std::to_string(static_cast<long long>(number)); }

// The whole text read as a double into `number`; false when it is not one.
bool read_double(const std::string& text, double& number) {
    if (text.empty()) return false;
    char* end = nullptr;
    number = std::strtod(text.c_str(), &end);
    return *end == '\0';
}

// "1,5" (a decimal comma) as "1.5", or "" when the text is not digits around one comma.
std::string with_point(const std::string& digits) {
    const std::size_t comma = digits.find(',');
    if (comma == std::string::npos || !all_digits(digits.substr(0, comma)) || !all_digits(digits.substr(comma + 1)))
        return "";
    return digits.substr(0, comma) + "." + digits.substr(comma + 1);
}

std::string number_problem(const std::string& kind, std::string& value) {
    const std::size_t first = value.find_first_not_of(" \t"), last = value.find_last_not_of(" \t");
    value = first == std::string::npos ? "" : value.substr(first, last - first + 1);
    const std::string quoted = "'" + value + "'";
    if (value.empty()) return "an empty value; expected a number";
    const std::size_t digits_from = value.find_first_not_of("+-");
    if (digits_from == std::string::npos || digits_from > 1) return quoted + ": expected one sign and one number";
    const std::string sign = value.substr(0, digits_from), digits = value.substr(digits_from);
    const bool whole = kind != "FLOAT";
    double number = 0.0;
    if (!read_double(value, number)) {
        const std::string point = with_point(digits);
        if (point.empty()) return quoted + " is not a number";
        if (whole) return quoted + " is not a whole number";
        return quoted + " is not a number (write " + sign + point + ": the decimal separator is a point)";
    }
    if (!std::isfinite(number)) return quoted + ": expected a finite number";

    if (whole) {  // in decimal digits only
        if (!all_digits(digits)) {
            if (number != std::floor(number)) return quoted + " is not a whole number";
            if (std::fabs(number) < 1e15)
                return quoted + " is not written in digits (write " + digits_of(number) + ")";
            return quoted + ": too large";
        }
        if (kind == "UINT" && sign == "-") return quoted + ": expected a number at least 0";
        value = sign + digits.substr(std::min(digits.find_first_not_of('0'), digits.size() - 1));
        errno = 0;
        if (kind == "UINT") std::strtoull(value.c_str(), nullptr, 10);
        else std::strtoll(value.c_str(), nullptr, 10);
        if (errno == ERANGE)
            return quoted + (kind == "UINT" ? ": too large (at most 2^64 − 1)" : ": too large (at most 2^63 − 1 in size)");
        return "";
    }
    if (std::fabs(number) > 3.4e38) return quoted + ": too large for a float32 (at most 3.4e38 in size)";
    return "";
}

}  // namespace

std::string flag_value_problem(const std::string& kind, std::string& value) {
    if (is_number_kind(kind)) return number_problem(kind, value);
    if (!value.empty()) return "";
    if (kind == "PATH") return "'': an empty path; expected a file name";
    if (kind == "DIR") return "'': an empty path; expected a directory name";
    return "'': an empty value";
}

void check_flag_values(CLI::App& app) {
    for (CLI::Option* option : app.get_options()) {
        if (!takes_value(*option)) continue;  // a flag such as --no-color
        const std::string type = option->get_type_name();
        const std::string kind = type.substr(0, type.find(':'));
        if (!is_number_kind(kind) && kind != "PATH" && kind != "DIR" && kind != "TEXT" && kind != "NAME")
            throw std::logic_error("option " + option->get_name() + " has the type name '" + kind +
                                   "': use INT, UINT, FLOAT, PATH, DIR, TEXT or NAME, so that its values are checked");
        option->transform(CLI::Validator([kind](std::string& value) { return flag_value_problem(kind, value); }, ""));
    }
}

std::vector<std::string> split_empty_values(const CLI::App& app, int argc, const char* const* argv) {
    std::vector<std::string> args;
    for (int i = 0; i < argc; ++i) {
        const std::string arg = argv[i];
        const CLI::Option* option = nullptr;
        if (i > 0 && arg.size() > 3 && arg.rfind("--", 0) == 0 && arg.back() == '=')
            option = app.get_option_no_throw(arg.substr(0, arg.size() - 1));
        if (option != nullptr && takes_value(*option)) {
            args.push_back(arg.substr(0, arg.size() - 1));
            args.emplace_back();
        } else {
            args.push_back(arg);
        }
    }
    return args;
}

namespace {

// The edits (a letter inserted, removed or changed) that turn a into b.
std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

}  // namespace

std::string did_you_mean(const CLI::App& app, const std::vector<std::string>& args) {
    std::vector<std::string> names;  // every long flag, without its "--"
    for (const CLI::Option* option : app.get_options())
        for (const std::string& name : option->get_lnames()) names.push_back(name);
    for (const std::string& arg : args) {
        if (arg == "--") break;
        if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) continue;
        const std::string unknown = arg.substr(2, arg.find('=') - 2);
        if (std::find(names.begin(), names.end(), unknown) != names.end()) continue;
        const std::size_t near = unknown.size() >= 5 ? 2 : 1;  // more edits than this is another word
        std::size_t nearest = SIZE_MAX;
        std::vector<std::string> meant;
        for (const std::string& name : names) {
            const std::size_t edits = edit_distance(unknown, name);
            const bool beginning = unknown.size() >= 2 && name.compare(0, unknown.size(), unknown) == 0;
            if (!beginning && edits > near) continue;
            if (edits < nearest) nearest = edits, meant.clear();
            if (edits == nearest) meant.push_back("--" + name);
        }
        if (meant.empty()) continue;
        return " (did you mean " + meant[0] + (meant.size() > 1 ? " or " + meant[1] : "") + "?)";
    }
    return "";
}
