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
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/matrix.hpp"
#include "common/print.hpp"
#include "common/self_check.hpp"

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
    void show(const std::string& name, const std::string& formula, const Matrix& m, const Labels& row_labels,
              const Labels& col_labels, int decimals = 3);
    // Keeps a matrix for --dump without printing it.
    void keep_for_dump(const std::string& name, const Matrix& m);

    SelfChecks& checks() { return checks_; }
    const PrintStyle& style() const { return style_; }

private:
    void write_dumps() const;
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
    SelfChecks checks_;
};
