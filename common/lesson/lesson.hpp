// The frame every chapter runs in: its command line, its named steps, its
// --dump files and its self-checks. A chapter's main.cpp computes with its
// math.cpp, lists the result's matrices, then registers its steps and presents them:
//
//   #include "chapters/01_dot_product_scores/math.hpp"
//   #include "common/inputs/sequence.hpp"
//   #include "common/lesson/lesson.hpp"
//   //
//   int main(int argc, char** argv) {
//       Lesson lesson("ch01_dot_product_scores", "Chapter 01 · Dot-product scores");
//       const std::string& input = lesson.add_input_option("\"the cat sat\"");   // --input PATH
//       std::size_t query = 2;
//       lesson.option("--query", query, "the row of the one-query step", Range{0, 2});
//       return lesson.run(argc, argv, [&] {
//           const Sequence seq = load_sequence(input, "the cat sat");
//           const DotProductScores r = dot_product_scores(seq.X);       // math.cpp
//           lesson.labels("tokens", seq.tokens);                         // the words of the list's labels
//           lesson.list(r.matrices());                                   // dumped and graded, shown or not
//           lesson.step("all-at-once", "All queries at once", [&] {
//               lesson.say("One matrix product gives every score.");
//               lesson.show(r.scores, Style().svg());                    // the listed matrix itself
//           });
//           lesson.step("checks", "Self-checks", [&] {
//               lesson.checks().close("the loops agree", max_abs_difference(r.scores_by_loops, r.scores), 1e-5);
//           });
//           lesson.present();
//       });
//   }
//
// (The test lesson_example compiles this example.)
//
// A computation that takes seconds (a training) is a part, done when a step first reads it,
// so that --list-steps, and a --step that does not read it, never wait for it
// (common/lesson/part.hpp); its matrices join the list once it is computed:
//
//   Part<Trained>& trained = lesson.part<Trained>([&] { return train(settings); });
//   lesson.step("trained", "After training", [&] { show_trained(lesson, trained()); });
//
// A step has a name (letters, digits and '-') that the command line, the docs
// (`step=all-at-once`) and other steps' text use (lesson.ref("checks") →
// "step 2"); the frame numbers the steps in the order they are registered, so a
// new step renumbers nothing by hand.
//
//   --step NAME (or N)  prints the title and that step only
//   --list-steps        prints the steps' numbers, names and headings
//   --list-options      prints the chapter's flags as JSON, computing nothing
//   --pause             waits for Enter after each step (when stdin is a terminal)
//   --color=auto|always|never   heat shading; auto: a terminal, without NO_COLOR,
//                       and TERM not "dumb" (--no-color is --color=never)
//
// Matrices are elided column-wise to the terminal's width: COLUMNS, or the
// terminal's own size, or 100 columns when the output is not a terminal.
//
// A chapter declares each of its flags once, with the values it allows
// (common/lesson/options.hpp): the check, --help's range and --list-options come from it.
// By its type (INT, UINT, FLOAT, PATH, DIR, TEXT, NAME) the frame refuses a value that is
// not a number, an empty value, "1,5" for 1.5, before the chapter sees it
// (common/lesson/flag_values.hpp).
//
// Exit codes: 0 all self-checks hold, 1 a self-check failed, 2 bad input (a file,
// a flag or a value), with one line on stderr that names it.
//
// What a step prints, each a block the frame separates from the one before by an
// empty line (no "\n" to write by hand):
//
//   lesson.say("A paragraph of explanation.");
//   lesson.show(r.weights, Style().svg());               // a listed matrix: name, formula, shape, labels
//   lesson.table({"query", "largest weight"}, rows);     // long tables elided: first and last rows
//   lesson.heat_map(r.weights);                          // one character per entry: a 64 × 64 map fits
//   lesson.say_under("a line right under the block above, with no empty line");
//   lesson.show_side_by_side({{r.before, Style()}, {r.after, Style()}});
//
// Pictures (--svg DIR). Every chapter accepts --svg DIR and then writes pictures
// as DIR/<name>.svg (see common/display/svg.hpp for what they look like):
//
//   - show() draws a heat map of a matrix when it is shown with Style().svg()
//     and is at most 64 × 64: attention maps, masks and positional encodings are
//     what a picture teaches.
//   - draw(r.weights) draws a listed matrix's heat map without printing it.
//   - plot(name, title, x, y, series) draws curves, one line per method:
//
//       lesson.plot("cost", "Memory of the scores against n",
//                   {"sequence length n (tokens)", true}, {"memory (MiB)", true},   // log–log
//                   {{"materialised", ns, full_mib}, {"streaming", ns, streaming_mib}});
//
//     Axis labels carry their units; make an axis log (the `true`) where the lesson
//     is a power law, so it reads as a straight line.
//   - chart(name, title, x, y, series, options) prints the same curves as a chart
//     of text (common/display/terminal_chart.hpp) and draws them like plot().
//
// The page (--html DIR). Every chapter accepts --html DIR and then writes DIR/index.html:
// the steps as they printed, with their prose, tables, charts and self-checks, and every
// listed matrix as a heat map to hover (attention weights also as lines between tokens), in
// one page that opens from file:// (common/output/explorer_page.hpp; ./tutorial explore).
//
// The report (--report PATH). What the run showed as one JSON document, the one the page draws
// from (common/output/run_document.hpp): the steps and their blocks, every listed matrix with
// its declared kind, the self-checks and, under ./tutorial check, the verdict. With --step, the
// report holds that step and the matrices it shows, and only what they read is computed (a
// page whose whole run is slow draws the step in view first: explorer/live/live_runs.js).
//
// Like the dumps, the pictures, the page and the report are written at the end of a run that did not stop
// on an error (nothing partial), into a directory checked to be writable before
// the body runs. A doc embeds the pictures of the default run from
// docs/pictures/<program>/<name>.svg; golden_check keeps them up to date.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/display/print.hpp"
#include "common/display/svg.hpp"
#include "common/display/terminal_chart.hpp"
#include "common/display/text_table.hpp"
#include "common/lesson/grading.hpp"
#include "common/lesson/options.hpp"
#include "common/lesson/page.hpp"
#include "common/lesson/part.hpp"
#include "common/lesson/self_check.hpp"
#include "common/lesson/steps.hpp"
#include "common/lesson/style.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"
#include "common/output/explorer_page.hpp"
#include "common/output/listed_matrices.hpp"
#include "common/output/run_document.hpp"
#include "common/output/run_files.hpp"

class Lesson {
public:
    Lesson(std::string program, std::string title);
    // A chapter's lesson, named and titled by its manifest (chapters/NN_name/chapter.toml): the
    // build writes this constructor into each chapter's program (add_chapter, CMakeLists.txt).
    Lesson();

    // The chapter's own flags, declared before run() (common/lesson/options.hpp):
    //   lesson.option("--d-k", d_k, "width of a head's queries and keys", Range{1, 64});
    //   lesson.flag("--measure", measure, "also time the steps (output varies)");
    template <class Value, class... Allowed>
    Option& option(const std::string& name, Value& value, const std::string& help, Allowed&&... allowed) {
        return command_line_.add(name, value, help, std::forward<Allowed>(allowed)...);
    }
    Option& flag(const std::string& name, bool& value, const std::string& help) {
        return command_line_.add_flag(name, value, help);
    }
    // Whether the flag `name` was on the command line (its default may depend on the input).
    bool given(const std::string& name) const { return command_line_.given(name); }

    // Adds --input PATH (a labelled CSV sequence instead of `default_sequence`) and returns the
    // path it fills: load_sequence(path, …) reads it (common/inputs/sequence.hpp). A sentence
    // through chapter 22's model comes with it from add_sentence_options
    // (common/language_model/sentence_option.hpp), not from the frame.
    const std::string& add_input_option(const std::string& default_sequence);
    // A flag the chapter declares only to refuse it in one line, before anything is read:
    // "NAME: why" (--text in a chapter whose mathematics takes no sentence).
    void refuse_option(const std::string& name, const std::string& help, const std::string& why);
    // Runs `check` once the command line is read, before the body: an InputError it throws is
    // the run's one line on stderr (exit code 2), as a bad flag's.
    void after_parse(std::function<void()> check);
    // Whether this run only lists the steps (--list-steps): nothing is computed for it.
    bool listing_steps() const { return list_steps_; }
    // A file the page of --html carries beside it when the page computes (a flag's data that
    // the WebAssembly program reads, e.g. the trained model a sentence goes through): `make`
    // gives its text, "" for none.
    void page_file(const std::string& name, std::function<std::string()> make);
    // Says that --text goes through chapter 22's model (add_sentence_options): --list-options
    // tells so, and ./tutorial explore makes that model before the page.
    void sentence_through_model() { sentence_through_model_ = true; }

    // Parses the command line, runs the body, writes the dumps, returns the exit code.
    int run(int argc, char** argv, const std::function<void()>& body);

    // Registers the step `name` (see above): `show` prints it when present() runs.
    void step(const std::string& name, const std::string& heading, std::function<void()> show);
    // Prints the steps (all, or the one --step chose, or their list), in order.
    // Call it once, at the end of run()'s body, while what the steps show is alive.
    void present();
    // With --pause (every step shown, at a terminal), waits for Enter inside a step too, saying
    // what comes next: lesson.pause("token 3 of 20") between the tokens of chapter 22's writing.
    void pause(const std::string& next);
    // How text refers to another step: ref("loop-form") → "step 2".
    std::string ref(const std::string& name) const;

    // The words of a kind of label that the chapter's list names (common/numbers/matrix_list.hpp):
    //   lesson.labels("tokens", seq.tokens);
    //   lesson.labels({{"tokens", seq.tokens}, {"dimensions", seq.dimensions}});   // several at once
    void labels(const std::string& kind, Labels words);
    void labels(const std::vector<std::pair<std::string, Labels>>& kinds);
    // Adds matrices to the chapter's list: every one is written by --dump and graded by
    // ./tutorial check, shown or not; a step shows one by the matrix itself. Call it before present().
    void list(const MatrixList& matrices);
    // A part of the computation done when first needed (common/lesson/part.hpp): a training
    // that --list-steps, and a --step that does not read it, never wait for. Its value's
    // matrices() join the list once it is computed.
    template <class T>
    Part<T>& part(std::function<T()> make) {
        auto computed = [this](const T& value) { list(value.matrices()); };
        parts_.push_back(std::make_unique<Part<T>>(std::move(make), std::move(computed)));
        return static_cast<Part<T>&>(*parts_.back());
    }

    // A paragraph of explanation: a block of its own.
    void say(const std::string& text);
    // Text right under the block before it, with no empty line between (a caption).
    void say_under(const std::string& text);
    // Prints a listed matrix with its name, formula, shape and labels: lesson.show(r.weights),
    // the result's own matrix (one never listed, a copy, is the chapter's mistake).
    void show(const Matrix& matrix, const Style& style = Style());
    // Prints a listed matrix as a heat map of text, one character per entry
    // (common/display/heat_map_text.hpp): a whole attention map fits the line, where show()
    // would elide its middle; the decimals are those of the scale's ends.
    void heat_map(const Matrix& matrix, const Style& style = Style());
    // Listed matrices next to each other as far as the width allows.
    struct SideBySide {
        const Matrix& matrix;  // the result's own, as listed
        Style style;
    };
    void show_side_by_side(const std::vector<SideBySide>& matrices);
    // With --svg, draws a listed matrix as <name>.svg without printing it.
    void draw(const Matrix& matrix, const Style& style = Style());
    // A table of text (common/display/text_table.hpp); more than `max_rows` rows
    // print as the first and last few, with ⋮ between. The columns `bars` hold probabilities
    // (0 … 1): the page draws each cell as a bar too.
    void table(const TextRow& header, const std::vector<TextRow>& body, std::size_t max_rows = 16,
               const std::vector<std::size_t>& bars = {});
    // With --svg, draws curves as <name>.svg: one line per series, with a legend.
    void plot(const std::string& name, const std::string& title, const Axis& x, const Axis& y,
              const std::vector<Series>& series);
    // Prints the title and the series as a chart of text (the axes' log scales are
    // the plot's), and with --svg draws them as plot() does.
    void chart(const std::string& name, const std::string& title, const Axis& x, const Axis& y,
               const std::vector<Series>& series, ChartOptions options);

    SelfChecks& checks() { return checks_; }

private:
    void keep_listed();
    void compute_parts();
    const ListedMatrix& find(const Matrix& matrix);
    std::string matrix_text(const ListedMatrix& m, const Style& style);
    void draw_picture(const ListedMatrix& m, const Style& style);
    void keep_document();
    bool takes_text() const;

    // The command line.
    std::string program_, title_;
    CommandLine command_line_;
    std::string input_path_;  // --input
    struct RefusedOption {
        std::string name, why, given;  // given: the flag's value, read only to be refused
    };
    std::deque<RefusedOption> refused_;  // a deque: the command line holds a reference to each `given`
    std::vector<std::function<void()>> after_parse_;
    std::vector<std::pair<std::string, std::function<std::string()>>> page_files_;  // beside the page
    bool sentence_through_model_ = false;
    std::string dump_dir_, svg_dir_, html_dir_, report_path_;
    bool no_color_ = false;
    std::string color_ = "auto";
    std::string only_step_;  // --step
    bool list_steps_ = false;
    bool list_options_ = false;
    bool pause_ = false;
    bool pausing_ = false;   // --pause, at a terminal: present() waits after each step (all shown), pause() inside one
    // The jobs of the frame, one class each.
    Steps steps_;             // the named steps, in order
    bool presented_ = false;
    SelfChecks checks_;       // the ✓ and ✗ lines
    Page page_;               // where text goes: title, headings, blocks
    ListedMatrices listed_;   // the chapter's matrices, by name
    std::vector<std::unique_ptr<LessonPart>> parts_;  // computed when first needed
    RunFiles files_;          // --dump, --svg, --html and --report, written at the end
    RunDocument document_;    // what the steps printed, for --report, --html and the grading
    ExplorerPage explorer_;   // the page of --html
    Grading grading_;         // ./tutorial check's verdict
};
