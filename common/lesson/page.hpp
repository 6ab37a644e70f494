// How a lesson's text sits on the page: the title once, above the first thing
// printed; a heading per step; blocks (a paragraph, a matrix, a table) separated by
// one empty line, the first right under its heading; text wrapped to the width.
#pragma once

#include <string>

#include "common/display/print.hpp"
#include "common/lesson/self_check.hpp"

class Page {
public:
    // The self-check lines are blocks too: a block after them is spaced from them.
    Page(std::string title, const SelfChecks& checks) : title_(std::move(title)), checks_(checks) {}

    void set_style(const PrintStyle& style) { style_ = style; }
    const PrintStyle& style() const { return style_; }

    // The chapter's title and its rule, printed with the first output only, so that a
    // bad input found before any step leaves stdout empty.
    void title_once();
    // "Step N. Heading" and its rule.
    void heading(int number, const std::string& heading);
    // A block of text (ending in a newline), spaced from the block before.
    void block(const std::string& text);
    // Text right under the block before it, wrapped to the width; one '\n' is added
    // unless it ends with one.
    void under(const std::string& text);

private:
    std::string title_;
    const SelfChecks& checks_;
    PrintStyle style_;
    bool title_printed_ = false;
    int blocks_in_step_ = 0;     // blocks printed since the step's heading
    int checks_at_heading_ = 0;  // self-check lines printed before it
};
