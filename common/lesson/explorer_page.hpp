// The lesson as a web page (--html DIR writes DIR/index.html): the explorer.
//
// While the steps print, the frame records here what each one prints: its prose, the
// matrices it shows, its tables, charts and self-checks. html() writes them as the page's
// data (JSON), with every matrix of the chapter's list (values, formula, labels), into one
// self-contained page: its script and style (explorer/explorer.js and explorer.css, read
// from the source tree, so an edit of them shows at the next run) and d3 (Debian's
// node-d3), all inlined, so that the page opens from file:// with no network.
//
//   page.start();                          // --html given: reads the files it inlines
//   page.step(1, "heads", "Two heads");
//   page.text("Each head has its own W_Q, W_K and W_V.");
//   page.matrix("weights", 3);
//   std::string html = page.html("ch07_multi_head", "Chapter 07 · Multi-head attention", listed);
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/lesson/listed_matrices.hpp"
#include "common/lesson/svg.hpp"
#include "common/lesson/text_table.hpp"

class ExplorerPage {
public:
    // Reads the files the page inlines (an InputError names one that cannot be read, and the
    // package that holds it), before anything is computed; records from now on. Before it,
    // the calls below keep nothing: a run without --html pays nothing.
    void start();

    // A step's heading; what is recorded next belongs to it.
    void step(int number, const std::string& name, const std::string& heading);
    void text(const std::string& text);     // a paragraph
    void caption(const std::string& text);  // a line right under the block before
    // A listed matrix shown as numbers ("matrix"), as a map of one character per entry
    // ("heat_map") or as numbers that are positions or indices ("indices"), with its decimals.
    void matrix(const std::string& kind, const std::string& name, int decimals);
    void side_by_side(const std::vector<std::pair<std::string, int>>& names_and_decimals);
    void table(const TextRow& header, const std::vector<TextRow>& rows);
    void chart(const std::string& name, const std::string& title, const Axis& x, const Axis& y,
               const std::vector<Series>& series);
    // A self-check's line: its mark (✓, ✗ or ·) and its text. Lines in a row make one block.
    void check(const std::string& mark, const std::string& text);

    // The page; the last self-check lines become a block of the last step.
    std::string html(const std::string& program, const std::string& title, const ListedMatrices& listed);

private:
    void block(std::string json);
    void end_checks();

    struct Step {
        std::string head;                 // "number", "name", "heading" as JSON members
        std::vector<std::string> blocks;  // each a JSON object
    };
    bool started_ = false;
    std::string style_, d3_, script_;  // the files the page inlines
    std::vector<Step> steps_;
    std::vector<std::string> checks_;  // the self-check lines not yet in a block
};
