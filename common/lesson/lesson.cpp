#include "common/lesson/lesson.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <new>

#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <xtensor/xnpy.hpp>

#include "common/math/input_error.hpp"
#include "common/lesson/compare.hpp"
#include "common/lesson/elide.hpp"
#include "common/lesson/fit_width.hpp"
#include "common/lesson/flag_values.hpp"
#include "common/lesson/heat_map_text.hpp"
#include "common/lesson/output_files.hpp"
#include "common/lesson/side_by_side.hpp"
#include "common/lesson/text_width.hpp"

namespace {

bool is_file_name(const std::string& name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    });
}

}  // namespace

namespace {

bool wants_color(const std::string& color, bool no_color) {
    if (no_color || color == "never") return false;
    if (color == "always") return true;
    const char* term = std::getenv("TERM");
    return std::getenv("NO_COLOR") == nullptr && !(term && std::string(term) == "dumb") && isatty(STDOUT_FILENO);
}

// The columns a line may take: $COLUMNS, else the terminal's own width, else
// (a pipe, a file, a golden test) 100, a projector's or a wide terminal's.
std::size_t terminal_width() {
    constexpr std::size_t narrowest = 40, fallback = 100;
    if (const char* columns = std::getenv("COLUMNS")) {
        char* end = nullptr;
        const long value = std::strtol(columns, &end, 10);
        if (end != columns && *end == '\0' && value > 0) return std::max<std::size_t>(narrowest, std::size_t(value));
    }
    winsize size{};
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
        return std::max<std::size_t>(narrowest, size.ws_col);
    return fallback;
}

bool is_step_name(const std::string& name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    });
}

}  // namespace

Lesson::Lesson(std::string program, std::string title)
    : program_(std::move(program)), title_(std::move(title)), cli_(title_, program_) {
    cli_.add_option("--dump", dump_dir_, "write every printed matrix to DIR/<name>.npy (numpy.load opens them)")
        ->type_name("DIR");
    cli_.add_option("--svg", svg_dir_,
                    "draw the pictures (heat maps of attention maps, curves) as DIR/<name>.svg, for a browser")
        ->type_name("DIR");
    cli_.add_option("--color", color_,
                    "heat shading: auto (a terminal, unless NO_COLOR is set or TERM=dumb), always (also "
                    "through | less -R), never")
        ->check(CLI::IsMember({"auto", "always", "never"}))
        ->capture_default_str();
    cli_.add_flag("--no-color", no_color_, "plain text, no heat shading: --color=never");
    cli_.add_option("--step", only_step_, "print only this step (its name or number; --list-steps shows them)")
        ->type_name("NAME");
    cli_.add_flag("--list-steps", list_steps_, "list the steps (number, name, heading) and stop");
    cli_.add_flag("--pause", pause_, "wait for Enter after each step (when reading from a terminal)");
    // For ./tutorial check: the chapter's own results (saved with --dump) to grade a
    // learner's math.cpp against; an environment variable, so --help stays the lesson's.
    if (const char* expect = std::getenv("TUTORIAL_EXPECT")) expect_dir_ = expect;
}

std::string& Lesson::add_input_option(const std::string& default_sequence) {
    cli_.add_option("--input", input_path_,
                    fmt::format("a labelled CSV sequence (header token,<dims…>, one row per token) "
                                "instead of the default: {}",
                                default_sequence))
        ->type_name("PATH");
    return input_path_;
}

int Lesson::run(int argc, char** argv, const std::function<void()>& body) {
    try {
        check_flag_values(cli_);
        const std::vector<std::string> args = split_empty_values(cli_, argc, argv);
        std::vector<const char*> pointers;
        for (const std::string& arg : args) pointers.push_back(arg.c_str());
        cli_.parse(int(pointers.size()), pointers.data());
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return cli_.exit(e);  // --help
        std::string message = e.what();
        std::replace(message.begin(), message.end(), '\n', ' ');
        fmt::print(stderr, "{}: {} (see --help)\n", program_, message);
        return 2;
    }
    style_.color = wants_color(color_, no_color_);
    style_.line_width = terminal_width();
    checks_.set_line_width(style_.line_width);
    try {
        if (!dump_dir_.empty()) require_writable_directory("--dump", dump_dir_);
        if (!svg_dir_.empty()) require_writable_directory("--svg", svg_dir_);
        body();
        if (!registered_.empty() && !presented_) throw std::logic_error("the steps were registered but not presented");
        write_outputs();
    } catch (const InputError& e) {
        std::fflush(stdout);
        fmt::print(stderr, "{}: {}\n", program_, e.what());
        return 2;
    } catch (const std::bad_alloc&) {
        std::fflush(stdout);
        fmt::print(stderr, "{}: out of memory\n", program_);
        return 2;
    } catch (const std::exception& e) {  // e.g. a dump file that cannot be written
        std::fflush(stdout);
        fmt::print(stderr, "{}: {}\n", program_, e.what());
        return 2;
    }
    if (!expect_dir_.empty()) report_expected();
    // For ./tutorial check: the lesson ran to its end (an exit() in the learner's code
    // would stop it before, with an exit code that means nothing).
    if (const char* ended = std::getenv("TUTORIAL_ENDED"); ended && *ended) std::ofstream(ended) << "ended\n";
    if (checks_.failed() > 0 || !differences_.empty()) {
        std::fflush(stdout);
        if (checks_.failed() > 0)
            fmt::print(stderr, "{}: {} of {} self-checks failed\n", program_, checks_.failed(),
                       checks_.failed() + checks_.passed());
        else
            fmt::print(stderr, "{}: {} of {} matrices differ from the chapter's\n", program_, differences_.size(),
                       compared_);
        return 1;
    }
    return 0;
}

// The chapter's title is printed with its first output, so that a bad input
// found before any step leaves stdout empty.
void Lesson::print_title_once() {
    if (title_printed_) return;
    title_printed_ = true;
    const std::string title = wrap_to_width(title_, style_.line_width);
    std::string rule;
    for (std::size_t i = 0; i < display_width(title.substr(0, title.find('\n'))); ++i) rule += "═";
    fmt::print("{}\n{}\n", title, rule);
}

void Lesson::step(const std::string& name, const std::string& heading, std::function<void()> show) {
    if (!is_step_name(name)) throw std::logic_error("step name '" + name + "' is not lower-case letters, digits and '-'");
    for (const Step& s : registered_)
        if (s.name == name) throw std::logic_error("two steps are named '" + name + "'");
    registered_.push_back({name, heading, std::move(show)});
}

std::string Lesson::ref(const std::string& name) const {
    for (std::size_t i = 0; i < registered_.size(); ++i)
        if (registered_[i].name == name) return "step " + std::to_string(i + 1);
    throw std::logic_error("no step is named '" + name + "'");
}

void Lesson::present() {
    presented_ = true;
    std::size_t chosen = registered_.size();  // all of them
    if (!only_step_.empty()) {
        for (std::size_t i = 0; i < registered_.size(); ++i)
            if (registered_[i].name == only_step_ || std::to_string(i + 1) == only_step_) chosen = i;
        if (chosen == registered_.size()) {
            std::string names;
            for (const Step& s : registered_) names += (names.empty() ? "" : ", ") + s.name;
            throw InputError(fmt::format("--step {}: no such step (the steps: {}; or 1 to {})", only_step_, names,
                                         registered_.size()));
        }
    }
    if (list_steps_) {
        print_title_once();
        for (std::size_t i = 0; i < registered_.size(); ++i)
            fmt::print("{:>2}  {:<16} {}\n", i + 1, registered_[i].name, registered_[i].heading);
        return;
    }
    keep_listed();
    const bool can_pause = pause_ && isatty(STDIN_FILENO);
    for (std::size_t i = 0; i < registered_.size(); ++i) {
        if (chosen != registered_.size() && i != chosen) continue;
        print_title_once();
        print_heading(int(i + 1), registered_[i].heading);
        registered_[i].show();
        steps_ = int(i + 1);
        if (can_pause && chosen == registered_.size() && i + 1 < registered_.size()) {
            std::fflush(stdout);
            fmt::print(stderr, "\n── Enter: {} ({}) · Ctrl-C: stop ──", ref(registered_[i + 1].name),
                       registered_[i + 1].name);
            int c = 0;
            while ((c = std::getchar()) != EOF && c != '\n') {}
            if (c == EOF) pause_ = false;
        }
    }
}

void Lesson::print_heading(int number, const std::string& heading) {
    const std::string title = wrap_to_width(fmt::format("Step {}. {}", number, heading), style_.line_width);
    std::string rule;  // as wide as its first line, the widest when it is wrapped
    for (std::size_t i = 0; i < display_width(title.substr(0, title.find('\n'))); ++i) rule += "─";
    fmt::print("\n{}\n{}\n", title, rule);
    blocks_in_step_ = 0;
    checks_at_heading_ = checks_.printed();
}

// Blocks are separated by an empty line; the first after a heading sits right under it.
void Lesson::begin_block() {
    print_title_once();
    if (blocks_in_step_ > 0 || checks_.printed() > checks_at_heading_) fmt::print("\n");
    ++blocks_in_step_;
}

// A text ends its line: one '\n' is added unless it has one (a table's text does).
void Lesson::say(const std::string& text) {
    begin_block();
    say_under(text);
}

void Lesson::say_under(const std::string& text) {
    print_title_once();
    const std::string fitted = wrap_to_width(text, style_.line_width);
    fmt::print(!fitted.empty() && fitted.back() == '\n' ? "{}" : "{}\n", fitted);
}

// A matrix's printed text; the matrix is kept for --dump, and drawn when `as` asks.
std::string Lesson::matrix_text(const std::string& name, const Matrix& m, const ShowAs& as) {
    keep_for_dump(name, m, as.row_labels, as.col_labels);
    if (as.drawn) picture(name, m, as);
    PrintStyle style = style_;
    style.decimals = as.decimal_places;
    return format_matrix(name, as.formula, m, as.row_labels, as.col_labels, style);
}

void Lesson::show(const std::string& name, const Matrix& m, const ShowAs& as) {
    const std::string text = matrix_text(name, m, as);
    begin_block();
    fmt::print("{}", text);
}

void Lesson::heat_map_block(const std::string& name, const Matrix& m, const ShowAs& as) {
    keep_for_dump(name, m, as.row_labels, as.col_labels);
    if (as.drawn) picture(name, m, as);
    const std::string text = heat_map_text(name, as.formula, m, as.row_labels, as.decimal_places, style_.line_width);
    begin_block();
    fmt::print("{}", text);
}

void Lesson::show_side_by_side(const std::vector<Shown>& matrices) {
    if (matrices.empty()) return;
    std::vector<std::string> blocks;
    for (const Shown& s : matrices) blocks.push_back(matrix_text(s.name, s.m, s.as));
    const std::string text = side_by_side(blocks, style_.line_width);
    begin_block();
    fmt::print("{}", text.substr(text.find_first_not_of('\n')));  // the frame spaces the blocks
}

void Lesson::labels(const std::string& kind, Labels words) {
    if (kind.empty()) throw std::logic_error("a kind of label needs a name");
    for (auto& [known, kept] : label_kinds_)
        if (known == kind) throw std::logic_error("the labels '" + kind + "' are given twice");
    label_kinds_.emplace_back(kind, std::move(words));
}

void Lesson::list(const MatrixList& matrices) {
    for (const ListedMatrix& m : matrices) {
        if (!is_file_name(m.name)) throw std::logic_error("matrix name '" + m.name + "' is not a file name");
        for (const ListedMatrix& kept : listed_)
            if (kept.name == m.name) throw std::logic_error("two listed matrices are named '" + m.name + "'");
        listed_.push_back(m);
    }
}

const ListedMatrix& Lesson::listed(const std::string& name) const {
    for (const ListedMatrix& m : listed_)
        if (m.name == name) return m;
    throw std::logic_error("no matrix named '" + name + "' in the chapter's list");
}

// The words of `kind` for `count` rows or columns of the matrix `name` (none: numbered).
const Labels& Lesson::labels_of(const std::string& kind, std::size_t count, const std::string& name) const {
    static const Labels numbered_from_0;
    if (kind.empty()) return numbered_from_0;
    for (const auto& [known, words] : label_kinds_)
        if (known == kind) {
            if (words.size() != count)
                throw std::logic_error(fmt::format("{}: {} labels '{}' for {} rows or columns", name, words.size(),
                                                   kind, count));
            return words;
        }
    throw std::logic_error(name + ": no labels '" + kind + "' (lesson.labels)");
}

ShowAs Lesson::as_listed(const std::string& name, const Style& style) const {
    const ListedMatrix& m = listed(name);
    ShowAs as(m.formula);
    as.labels(labels_of(m.rows, rows(*m.matrix), name), labels_of(m.cols, cols(*m.matrix), name));
    as.decimals(style.decimal_places);
    if (style.drawn) as.heat_map();
    return as;
}

void Lesson::show(const std::string& name, const Style& style) { show(name, *listed(name).matrix, as_listed(name, style)); }

void Lesson::heat_map(const std::string& name, const Style& style) {
    heat_map_block(name, *listed(name).matrix, as_listed(name, style));
}

void Lesson::show_side_by_side(const std::vector<Named>& matrices) {
    std::vector<Shown> shown;
    for (const Named& n : matrices) shown.push_back({n.name, *listed(n.name).matrix, as_listed(n.name, n.style)});
    show_side_by_side(shown);
}

// Every listed matrix, shown or not, for --dump and ./tutorial check.
void Lesson::keep_listed() {
    for (const ListedMatrix& m : listed_)
        keep_for_dump(m.name, *m.matrix, labels_of(m.rows, rows(*m.matrix), m.name),
                      labels_of(m.cols, cols(*m.matrix), m.name));
}

void Lesson::table(const TextRow& header, const std::vector<TextRow>& body, std::size_t max_rows) {
    // A column a learner cannot name is a column a learner cannot read.
    for (std::size_t c = 0; c < header.size(); ++c)
        if (header[c].empty()) throw std::logic_error(fmt::format("a table's column {} has no header", c + 1));
    std::vector<TextRow> shown;
    for (const std::size_t i : elided_indices(body.size(), max_rows))
        shown.push_back(i == elided ? TextRow{"⋮"} : body[i]);
    begin_block();
    fmt::print("{}", format_table(header, shown, style_.line_width));
}

void Lesson::picture(const std::string& name, const Matrix& m, const ShowAs& as) {
    if (!is_file_name(name)) throw std::logic_error("picture name '" + name + "' is not a file name");
    constexpr std::size_t largest = 64;  // a bigger map is a blur of tiny cells, and a big file
    if (svg_dir_.empty() || rows(m) > largest || cols(m) > largest) return;
    keep_picture(name, heat_map_svg(name, as.formula, m, as.row_labels, as.col_labels, as.decimal_places));
}

void Lesson::plot(const std::string& name, const std::string& title, const Axis& x, const Axis& y,
                  const std::vector<Series>& series) {
    if (!is_file_name(name)) throw std::logic_error("plot name '" + name + "' is not a file name");
    if (svg_dir_.empty()) return;
    keep_picture(name, line_plot_svg(title, x, y, series));
}

void Lesson::chart(const std::string& name, const std::string& title, const Axis& x, const Axis& y,
                   const std::vector<Series>& series, ChartOptions options) {
    std::vector<ChartSeries> marked;
    for (const Series& s : series) marked.push_back({s.label, s.mark.empty() ? "•" : s.mark, s.x, s.y});
    options.log_x = x.log, options.log_y = y.log;
    const std::size_t margin = options.label_width + 2;  // the y labels and " │"
    if (style_.line_width > margin + 20) options.width = std::min(options.width, style_.line_width - margin);
    const char* scale = x.log && y.log ? " (log–log)" : x.log || y.log ? " (log scale)" : "";
    begin_block();
    fmt::print("{}\n{}", wrap_to_width(title + scale, style_.line_width), terminal_chart(marked, options));
    plot(name, title, x, y, series);
}

void Lesson::keep_picture(const std::string& name, std::string svg) {
    for (auto& [kept_name, kept] : pictures_)
        if (kept_name == name) {  // drawn again: the last one drawn is the one written
            kept = std::move(svg);
            return;
        }
    pictures_.emplace_back(name, std::move(svg));
}

void Lesson::keep_for_dump(const std::string& name, const Matrix& m, const Labels& row_labels,
                           const Labels& col_labels) {
    if (!is_file_name(name)) throw std::logic_error("matrix name '" + name + "' is not a file name");
    compare_with_expected(name, m, row_labels, col_labels);
    if (dump_dir_.empty()) return;
    for (auto& [kept_name, kept] : dumps_)
        if (kept_name == name) {  // shown again: the last one shown is the one dumped
            kept = m;
            return;
        }
    dumps_.emplace_back(name, m);
}

// The dumps and the pictures, all or none (common/lesson/output_files.hpp); the
// "Wrote" lines only once every file is in place.
void Lesson::write_outputs() const {
    OutputFiles files;
    std::string dumped, drawn;
    for (const auto& [name, m] : dumps_) {
        files.add(dump_dir_ + "/" + name + ".npy", xt::dump_npy(m));
        dumped += (dumped.empty() ? "" : ", ") + name + ".npy";
    }
    if (!svg_dir_.empty())
        for (const auto& [name, svg] : pictures_) {
            files.add(svg_dir_ + "/" + name + ".svg", svg);
            drawn += (drawn.empty() ? "" : ", ") + name + ".svg";
        }
    files.write_all();
    if (!dump_dir_.empty()) fmt::print("\nWrote {} matrices to {}/: {}\n", dumps_.size(), dump_dir_, dumped);
    if (!svg_dir_.empty())
        fmt::print("\nWrote {} picture{} to {}/{}\n", pictures_.size(), pictures_.size() == 1 ? "" : "s", svg_dir_,
                   drawn.empty() ? "" : ": " + drawn);
}

void Lesson::compare_with_expected(const std::string& name, const Matrix& m, const Labels& row_labels,
                                   const Labels& col_labels) {
    if (expect_dir_.empty()) return;
    for (Kept& shown : shown_)
        if (shown.name == name) {  // shown again: the last one is the one the chapter dumps
            shown = {name, m, row_labels, col_labels};
            return;
        }
    shown_.push_back({name, m, row_labels, col_labels});
}

// The verdict of ./tutorial check: every matrix against the chapter's own.
void Lesson::report_expected() {
    for (const Kept& shown : shown_) {
        const std::string path = expect_dir_ + "/" + shown.name + ".npy";
        if (!std::ifstream(path)) continue;  // the chapter's own run did not keep it
        ++compared_;
        const Matrix expected = xt::load_npy<float>(path);
        const std::string difference =
            describe_difference(shown.name, shown.m, expected, shown.row_labels, shown.col_labels);
        if (!difference.empty()) differences_.push_back(difference);
    }
    if (differences_.empty()) {
        fmt::print("\n✓ all {} matrices equal what the chapter's own math.cpp computes\n", compared_);
        return;
    }
    fmt::print("\n✗ {} of {} matrices differ from what the chapter's own math.cpp computes; the first:\n  {}\n",
               differences_.size(), compared_, differences_.front());
    for (std::size_t i = 1; i < differences_.size(); ++i)
        fmt::print("  then {}\n", differences_[i].substr(0, differences_[i].find('\n')));
}
