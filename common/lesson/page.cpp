#include "common/lesson/page.hpp"

#include <fmt/format.h>

#include "common/display/fit_width.hpp"
#include "common/display/text_width.hpp"

namespace {

// A rule as wide as the first line of `text`, the widest when it is wrapped.
std::string rule_under(const std::string& text, const char* stroke) {
    std::string rule;
    for (std::size_t i = 0; i < display_width(text.substr(0, text.find('\n'))); ++i) rule += stroke;
    return rule;
}

}  // namespace

void Page::title_once() {
    if (title_printed_) return;
    title_printed_ = true;
    const std::string title = wrap_to_width(title_, style_.line_width);
    fmt::print("{}\n{}\n", title, rule_under(title, "═"));
}

void Page::heading(int number, const std::string& heading) {
    const std::string title = wrap_to_width(fmt::format("Step {}. {}", number, heading), style_.line_width);
    fmt::print("\n{}\n{}\n", title, rule_under(title, "─"));
    blocks_in_step_ = 0;
    checks_at_heading_ = checks_.printed();
}

void Page::block(const std::string& text) {
    title_once();
    if (blocks_in_step_ > 0 || checks_.printed() > checks_at_heading_) fmt::print("\n");
    ++blocks_in_step_;
    fmt::print("{}", text);
}

void Page::under(const std::string& text) {
    title_once();
    const std::string fitted = wrap_to_width(text, style_.line_width);
    fmt::print(!fitted.empty() && fitted.back() == '\n' ? "{}" : "{}\n", fitted);
}
