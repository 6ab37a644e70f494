// The frame every chapter runs in: its command line, its named steps, its
// --dump files and its self-checks. A chapter's main.cpp computes with its
// math.cpp, then registers its steps and presents them:
//
//   int main(int argc, char** argv) {
//       Lesson lesson("ch01_dot_product_scores", "Chapter 01 · Dot-product scores");
//       const std::string& input = lesson.add_input_option("\"the cat sat\"");
//       return lesson.run(argc, argv, [&] {
//           const Sequence seq = load_sequence(input, "the cat sat");
//           const Scores r = compute_scores(seq.X);                    // math.cpp
//           lesson.step("all-at-once", "All queries at once", [&] {
//               lesson.show("scores", "X · Xᵀ", r.scores, seq.tokens, seq.tokens);
//           });
//           lesson.step("checks", "Self-checks", [&] { check(lesson.checks(), r); });
//           lesson.present();
//       });
//   }
//
// A step has a name (letters, digits and '-') that the command line, the docs
// (`step=all-at-once`) and other steps' text use (lesson.ref("checks") →
// "step 2"); the frame numbers the steps in the order they are registered, so a
// new step renumbers nothing by hand.
//
//   --step NAME (or N)  prints the title and that step only
//   --list-steps        prints the steps' numbers, names and headings
//   --pause             waits for Enter after each step (when stdin is a terminal)
//   --color=auto|always|never   heat shading; auto: a terminal, without NO_COLOR,
//                       and TERM not "dumb" (--no-color is --color=never)
//
// Matrices are elided column-wise to the terminal's width: COLUMNS, or the
// terminal's own size, or 100 columns when the output is not a terminal.
//
// Exit codes: 0 all self-checks hold, 1 a self-check failed, 2 bad input (a file,
// a flag or a value), with one line on stderr that names it.
//
// Pictures (--svg DIR). Every chapter accepts --svg DIR and then writes pictures
// as DIR/<name>.svg (see common/lesson/svg.hpp for what they look like):
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

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/math/matrix.hpp"
#include "common/lesson/print.hpp"
#include "common/lesson/self_check.hpp"
#include "common/lesson/svg.hpp"

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

    // Registers the step `name` (see above): `show` prints it when present() runs.
    void step(const std::string& name, const std::string& heading, std::function<void()> show);
    // Prints the steps (all, or the one --step chose, or their list), in order.
    // Call it once, at the end of run()'s body, while what the steps show is alive.
    void present();
    // How text refers to another step: ref("loop-form") → "step 2".
    std::string ref(const std::string& name) const;

    // "Step 3. Softmax turns scores into weights", printed at once (chapters not
    // yet written as named steps).
    void step(const std::string& heading);
    // A paragraph of explanation (printed as is, then a newline).
    void say(const std::string& text);
    // Prints a matrix with its name, formula, shape and labels, and keeps it for --dump
    // as <name>.npy. Names are file names: letters, digits and '_'.
    // With --svg, also draws its heat map as <name>.svg when `picture` says so.
    void show(const std::string& name, const std::string& formula, const Matrix& m, const Labels& row_labels,
              const Labels& col_labels, int decimals = 3, Picture picture = Picture::by_name);
    // Keeps a matrix for --dump without printing it (and, for ./tutorial check, to
    // compare with the chapter's own: keep every matrix of the result struct).
    void keep_for_dump(const std::string& name, const Matrix& m, const Labels& row_labels = {},
                       const Labels& col_labels = {});
    // With --svg, draws the heat map of a matrix as <name>.svg, without printing it.
    void picture(const std::string& name, const std::string& formula, const Matrix& m, const Labels& row_labels,
                 const Labels& col_labels, int decimals = 3);
    // With --svg, draws curves as <name>.svg: one line per series, with a legend.
    void plot(const std::string& name, const std::string& title, const Axis& x, const Axis& y,
              const std::vector<Series>& series);

    SelfChecks& checks() { return checks_; }
    const PrintStyle& style() const { return style_; }

private:
    void write_outputs() const;
    void keep_picture(const std::string& name, std::string svg);
    void print_title_once();
    void compare_with_expected(const std::string& name, const Matrix& m, const Labels& row_labels,
                               const Labels& col_labels);
    void report_expected();
    void print_heading(int number, const std::string& heading);

    std::string program_;
    std::string title_;
    CLI::App cli_;
    std::string input_path_;
    std::string dump_dir_;
    bool no_color_ = false;
    std::string color_ = "auto";
    std::string only_step_;  // --step
    bool list_steps_ = false;
    bool pause_ = false;
    struct Step {
        std::string name, heading;
        std::function<void()> show;
    };
    std::vector<Step> registered_;
    bool presented_ = false;
    std::string expect_dir_;  // $TUTORIAL_EXPECT: grade against the chapter's own results
    struct Shown {
        std::string name;
        Matrix m;
        Labels row_labels, col_labels;
    };
    std::vector<Shown> shown_;  // with --expect: every matrix shown or kept, the last of each name
    std::vector<std::string> differences_;
    int compared_ = 0;
    PrintStyle style_;
    int steps_ = 0;
    bool title_printed_ = false;
    std::vector<std::pair<std::string, Matrix>> dumps_;
    std::string svg_dir_;
    std::vector<std::pair<std::string, std::string>> pictures_;  // name, SVG text
    SelfChecks checks_;
};
