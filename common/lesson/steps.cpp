#include "common/lesson/steps.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "common/numbers/input_error.hpp"

namespace {

bool is_step_name(const std::string& name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    });
}

}  // namespace

void Steps::add(const std::string& name, const std::string& heading, std::function<void()> show) {
    if (!is_step_name(name)) throw std::logic_error("step name '" + name + "' is not lower-case letters, digits and '-'");
    for (const Step& s : steps_)
        if (s.name == name) throw std::logic_error("two steps are named '" + name + "'");
    steps_.push_back({name, heading, std::move(show)});
}

std::string Steps::ref(const std::string& name) const {
    for (std::size_t i = 0; i < steps_.size(); ++i)
        if (steps_[i].name == name) return "step " + std::to_string(i + 1);
    throw std::logic_error("no step is named '" + name + "'");
}

std::size_t Steps::chosen(const std::string& choice) const {
    if (choice.empty()) return steps_.size();
    for (std::size_t i = 0; i < steps_.size(); ++i)
        if (steps_[i].name == choice || std::to_string(i + 1) == choice) return i;
    std::string names;
    for (const Step& s : steps_) names += (names.empty() ? "" : ", ") + s.name;
    throw InputError(fmt::format("--step {}: no such step (the steps: {}; or 1 to {})", choice, names, steps_.size()));
}
