// The frame every chapter runs in: its command line, its printed steps, its
// --dump files and its self-checks.
//
//   int main(int argc, char** argv) {
//       Lesson lesson("ch01_dot_product_scores", "Chapter 01 · Dot-product scores");
//       std::string input = lesson.add_input_option();
//       return lesson.run(argc, argv, [&] {
//           lesson.step("All queries at once");
//           lesson.show("scores", "X · Xᵀ", scores, tokens, tokens);   // printed, and dumped
//           lesson.checks().close("the loop agrees", error, 1e-5);
//       });
//   }
//
// Exit codes: 0 all self-checks hold, 1 a self-check failed, 2 bad input (a file,
// a flag or a value), with one line on stderr that names it.
//
// Pictures (--svg DIR). Every chapter accepts --svg DIR and then writes pictures
// as DIR/<name>.svg (see common/svg.hpp for what they look like):
//
//   - show() draws a heat map of the matrix when its name has the word "weights",
//     "mask" or "PE" between underscores ("weights", "weights_head0", "causal_mask",
//     "PE"), and it is at most 64 × 64: attention maps, masks and positional
//     encodings are what a picture teaches. Every other name gets no picture unless
//     the chapter asks: show(…, decimals, Picture::heat_map) draws one (e.g. the
//     scores of chapter 01, to see their symmetry and diagonal), Picture::none never.
//   - picture(name, formula, m, rows, cols) draws a heat map without printing.
//   - plot(name, title, x, y, series) draws curves, one line per method:
//
//       lesson.plot("cost", "Memory of the scores against n",
//                   {"sequence length n (tokens)", true}, {"memory (MiB)", true},   // log–log
//                   {{"materialised", ns, full_mib}, {"streaming", ns, streaming_mib}});
//
//     Axis labels carry their units; make an axis log (the `true`) where the lesson
//     is a power law, so it reads as a straight line.
//
// Like the dumps, the pictures are written at the end of a run that did not stop
// on an error (nothing partial), into a directory checked to be writable before
// the body runs. A doc embeds the pictures of the default run from
// docs/pictures/<program>/<name>.svg; golden_check keeps them up to date.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/matrix.hpp"
#include "common/print.hpp"
#include "common/self_check.hpp"
#include "common/svg.hpp"

// Whether show() draws a heat map of a matrix (see above).
enum class Picture {
    by_name,   // the rule: "weights", "mask" or "PE" in the name, at most 64 × 64
    heat_map,  // always (a chapter opts in)
    none,      // never
};

// The rule of Picture::by_name.
bool pictured_by_name(const std::string& name, const Matrix& m);

class Lesson {
public:
    Lesson(std::string program, std::string title);

    // Add the chapter's own flags here before run().
    CLI::App& cli() { return cli_; }

    // Adds --input PATH (a labelled CSV sequence) and returns the string it fills;
    // empty when the flag is not given.
    std::string& add_input_option(const std::string& default_sequence);

    // Parses the command line, runs the body, writes the dumps, returns the exit code.
    int run(int argc, char** argv, const std::function<void()>& body);

    // "Step 3. Softmax turns scores into weights", numbered in order.
    void step(const std::string& heading);
    // A paragraph of explanation (printed as is, then a newline).
    void say(const std::string& text);
    // Prints a matrix with its name, formula, shape and labels, and keeps it for --dump
    // as <name>.npy. Names are file names: letters, digits and '_'.
    // With --svg, also draws its heat map as <name>.svg when `picture` says so.
    void show(const std::string& name, const std::string& formula, const Matrix& m, const Labels& row_labels,
              const Labels& col_labels, int decimals = 3, Picture picture = Picture::by_name);
    // Keeps a matrix for --dump without printing it.
    void keep_for_dump(const std::string& name, const Matrix& m);
    // With --svg, draws the heat map of a matrix as <name>.svg, without printing it.
    void picture(const std::string& name, const std::string& formula, const Matrix& m, const Labels& row_labels,
                 const Labels& col_labels, int decimals = 3);
    // With --svg, draws curves as <name>.svg: one line per series, with a legend.
    void plot(const std::string& name, const std::string& title, const Axis& x, const Axis& y,
              const std::vector<Series>& series);

    SelfChecks& checks() { return checks_; }
    const PrintStyle& style() const { return style_; }

private:
    void write_dumps() const;
    void keep_picture(const std::string& name, std::string svg);
    void write_pictures() const;
    void print_title_once();

    std::string program_;
    std::string title_;
    CLI::App cli_;
    std::string input_path_;
    std::string dump_dir_;
    bool no_color_ = false;
    PrintStyle style_;
    int steps_ = 0;
    bool title_printed_ = false;
    std::vector<std::pair<std::string, Matrix>> dumps_;
    std::string svg_dir_;
    std::vector<std::pair<std::string, std::string>> pictures_;  // name, SVG text
    SelfChecks checks_;
};
