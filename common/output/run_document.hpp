// What a run showed, as one JSON document: written by --report FILE, embedded in the page of
// --html (explorer/draw/draw_lesson.js draws it), read by ./tutorial check for its verdict.
//
// While the steps print, the frame records here what each one prints; a run that asks for none
// of the report, the page or a grading records nothing (start() is never called).
//
//   document.start();
//   document.step(1, "heads", "Two heads");
//   document.text("Each head has its own W_Q, W_K and W_V.");
//   document.matrix("matrix", "weights", 3);
//   std::string json = document.json("ch07_multi_head", "Chapter 07 · Multi-head attention", listed, summary);
//
// The document, member by member ("schema": 1; a change that breaks a reader makes it 2):
//
//   schema     1
//   program    "ch07_multi_head"
//   title      "Chapter 07 · Multi-head attention"
//   steps      the steps the run printed, in order (all of them, or the one --step chose):
//     number, name, heading   as --list-steps prints them (number from 1)
//     blocks   what the step printed, in order; each has a "kind":
//       text      {text}                 a paragraph, its lines as printed
//       caption   {text}                 a line right under the block before
//       matrix    {name, decimals}       a listed matrix printed as numbers
//       heat_map  {name, decimals}       printed as a map of one character per entry
//       indices   {name, decimals}       printed as numbers that are positions or indices
//       side_by_side {matrices: [{name, decimals}]}
//       table     {header: [..], rows: [[..]]}   every row, also those the terminal elides;
//                 with bars: [..], the columns (from 0) of probabilities the page draws as bars
//       chart     {name, title, x: {label, log}, y: {label, log}, series: [{label, x: [..], y: [..]}]}
//                 (a coordinate that cannot be drawn is null)
//       checks    {lines: [{mark, status, text}]}  self-check lines in a row: mark ✓ ✗ or ·,
//                 status "passed", "failed" or "not checked", text as printed (unwrapped)
//   matrices   every listed matrix, shown or not, in the list's order (the document of one
//              step: the matrices it shows, with their families):
//     name, formula      as printed ("" when none)
//     shape              [rows, columns] of the whole matrix
//     rows, cols         the labels (words) of the rows and columns held; "0", "1", … when unnamed
//     values             its top-left corner of at most 128 × 128 (all of a smaller matrix), row
//                        by row; the shortest decimals that read back as the same float32;
//                        "inf", "-inf" and "nan" as strings (--dump writes the whole matrix)
//     kind               "attention weights", "scores", "mask", "indices" or "general"
//                        (declared by the mathematics: common/numbers/matrix_list.hpp)
//     family             the name of the matrices of which it is one per head and layer
//                        ("head_weights" for head0_weights, head1_weights, …), or null
//     head, layer        the head and layer it belongs to, or null
//     opens              for a (layers × heads) table, the family whose member of layer l, head h
//                        its cell (l, h) opens on the page, or null
//   summary
//     self_checks        {passed, failed, not_checked}: counts of the ✓, ✗ and · lines
//     grading            null, or under ./tutorial check: {compared, differ, matrices: [{name,
//                        equal, difference}]}: every matrix compared with the chapter's own, in the
//                        list's order; difference (when not equal) as the verdict prints it
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/display/svg.hpp"
#include "common/display/text_table.hpp"
#include "common/output/listed_matrices.hpp"

// How the run ended, for the document's summary.
struct RunSummary {
    int passed = 0, failed = 0, not_checked = 0;  // self-checks
    bool graded = false;                          // ./tutorial check compared the matrices
    struct Compared {
        std::string name, difference;  // difference empty: equal
    };
    std::vector<Compared> compared;
};

class RunDocument {
public:
    // Records from now on. Before it, the calls below keep nothing: a run that asks for no
    // document pays nothing.
    void start() { started_ = true; }
    bool recording() const { return started_; }
    // The document of one step (--step and --report) holds the matrices it shows, each with
    // the other heads and layers of its family, not every listed one.
    void hold_only_shown() { only_shown_ = true; }

    // A step's heading; what is recorded next belongs to it.
    void step(int number, const std::string& name, const std::string& heading);
    void text(const std::string& text);     // a paragraph
    void caption(const std::string& text);  // a line right under the block before
    // A listed matrix shown as numbers ("matrix"), as a map of one character per entry
    // ("heat_map") or as numbers that are positions or indices ("indices"), with its decimals.
    void matrix(const std::string& shown_as, const std::string& name, int decimals);
    void side_by_side(const std::vector<std::pair<std::string, int>>& names_and_decimals);
    void table(const TextRow& header, const std::vector<TextRow>& rows, const std::vector<std::size_t>& bars = {});
    void chart(const std::string& name, const std::string& title, const Axis& x, const Axis& y,
               const std::vector<Series>& series);
    // A self-check's line: its mark (✓, ✗ or ·) and its text. Lines in a row make one block.
    void check(const std::string& mark, const std::string& text);

    // The document (see above); the last self-check lines become a block of the last step.
    std::string json(const std::string& program, const std::string& title, const ListedMatrices& listed,
                     const RunSummary& summary);

private:
    void block(std::string json);
    void end_checks();

    struct Step {
        std::string head;                 // "number", "name", "heading" as JSON members
        std::vector<std::string> blocks;  // each a JSON object
    };
    bool started_ = false, only_shown_ = false;
    std::set<std::string> shown_;  // the names of the matrices the steps showed
    std::vector<Step> steps_;
    std::vector<std::string> checks_;  // the self-check lines not yet in a block
};
