#include "common/lesson/lesson.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>

#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "common/display/elide.hpp"
#include "common/display/fit_width.hpp"
#include "common/display/heat_map_text.hpp"
#include "common/display/side_by_side.hpp"
#include "common/machine/environment.hpp"
#include "common/numbers/input_error.hpp"

namespace {

bool wants_color(const std::string& color, bool no_color) {
    if (no_color || color == "never") return false;
    if (color == "always") return true;
    const char* term = environment(Setting::terminal);
    return environment(Setting::no_color) == nullptr && !(term && std::string(term) == "dumb") && isatty(STDOUT_FILENO);
}

// The columns a line may take: $COLUMNS, else the terminal's own width, else
// (a pipe, a file, a golden test) 100, a projector's or a wide terminal's.
std::size_t terminal_width() {
    constexpr std::size_t narrowest = 40, fallback = 100;
    if (const char* columns = environment(Setting::columns)) {
        char* end = nullptr;
        const long value = std::strtol(columns, &end, 10);
        if (end != columns && *end == '\0' && value > 0) return std::max<std::size_t>(narrowest, std::size_t(value));
    }
    winsize size{};
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
        return std::max<std::size_t>(narrowest, size.ws_col);
    return fallback;
}

}  // namespace

Lesson::Lesson(std::string program, std::string title)
    : program_(std::move(program)), title_(title), command_line_(title, program_), page_(title, checks_) {
    checks_.on_line([this](const std::string& mark, const std::string& text) { document_.check(mark, text); });
    command_line_.add("--dump", dump_dir_, "write every printed matrix to DIR/<name>.npy (numpy.load opens them)",
                 Text::dir);
    command_line_.add("--svg", svg_dir_,
                 "draw the pictures (heat maps of attention maps, curves) as DIR/<name>.svg, for a browser", Text::dir);
    command_line_.add("--html", html_dir_,
                 "write the lesson as a page to open in a browser, DIR/index.html: every step, every matrix "
                 "as a heat map to hover, attention as lines between tokens",
                 Text::dir);
    command_line_.add("--report", report_path_,
                      "write what the run showed to PATH as JSON, for programs: the steps, every matrix, the "
                      "self-checks",
                      Text::path);
    command_line_.add("--color", color_,
                 "heat shading: auto (a terminal, unless NO_COLOR is set or TERM=dumb), always (also "
                 "through | less -R), never",
                 Choices{"auto", "always", "never"});
    command_line_.add_flag("--no-color", no_color_, "plain text, no heat shading: --color=never");
    command_line_.add("--step", only_step_, "print only this step (its name or number; --list-steps shows them)",
                 Text::name);
    command_line_.add_flag("--list-steps", list_steps_, "list the steps (number, name, heading) and stop");
    command_line_.add_flag("--list-options", list_options_,
                      "print the chapter's flags as JSON (name, type, default, range or choices, help) and stop");
    command_line_.add_flag("--pause", pause_, "wait for Enter after each step (when reading from a terminal)");
    command_line_.frame_ends();
}

const std::string& Lesson::add_input_option(const std::string& default_sequence) {
    command_line_.add("--input", input_path_,
                 fmt::format("a labelled CSV sequence (header token,<dims…>, one row per token) "
                             "instead of the default: {}",
                             default_sequence),
                 Text::path);
    return input_path_;
}

void Lesson::refuse_option(const std::string& name, const std::string& help, const std::string& why) {
    RefusedOption& refused = refused_.emplace_back(RefusedOption{name, why, {}});
    command_line_.add(name, refused.given, help, Text::text);
}

void Lesson::after_parse(std::function<void()> check) { after_parse_.push_back(std::move(check)); }

void Lesson::page_file(const std::string& name, std::function<std::string()> make) {
    page_files_.push_back({name, std::move(make)});
}

// Whether the chapter takes a sentence (--text declared and not refused): the page then has
// a knob for it.
bool Lesson::takes_text() const {
    const bool refused = std::any_of(refused_.begin(), refused_.end(), [](const auto& r) { return r.name == "--text"; });
    return command_line_.declares("--text") && !refused;
}

int Lesson::run(int argc, char** argv, const std::function<void()>& body) {
    if (const std::optional<int> stop = command_line_.parse(argc, argv, terminal_width())) return *stop;  // --help, or a bad flag
    if (list_options_) {  // and whether --text goes through chapter 22's model (./tutorial explore trains it first)
        fmt::print("{}", command_line_.json(fmt::format(", \"sentence_through_model\": {}", sentence_through_model_)));
        return 0;
    }
    try {
        for (const auto& check : after_parse_) check();
    } catch (const InputError& e) {
        fmt::print(stderr, "{}: {}\n", program_, e.what());
        return 2;
    }
    for (const RefusedOption& refused : refused_)
        if (command_line_.given(refused.name)) {
            fmt::print(stderr, "{}: {}: {}\n", program_, refused.name, refused.why);
            return 2;
        }
    PrintStyle style;
    style.color = wants_color(color_, no_color_);
    style.line_width = terminal_width();
    page_.set_style(style);
    checks_.set_line_width(style.line_width);
    try {
        files_.set_directories(dump_dir_, svg_dir_, html_dir_);
        files_.set_report_file(report_path_);
        if (files_.paging()) explorer_.start(program_);
        if (files_.paging() || files_.reporting() || grading_.grading()) document_.start();
        body();
        if (!steps_.empty() && !presented_) throw std::logic_error("the steps were registered but not presented");
        files_.write(page_.style().line_width);
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
    if (grading_.grading()) grading_.report();
    if (checks_.failed() > 0 || grading_.any_differ()) {
        std::fflush(stdout);
        if (checks_.failed() > 0)
            fmt::print(stderr, "{}: {} of {} self-checks failed\n", program_, checks_.failed(),
                       checks_.failed() + checks_.passed());
        else
            fmt::print(stderr, "{}: {} of {} matrices differ from the chapter's\n", program_, grading_.differing(),
                       grading_.compared());
        return 1;
    }
    return 0;
}

void Lesson::step(const std::string& name, const std::string& heading, std::function<void()> show) {
    steps_.add(name, heading, std::move(show));
}

std::string Lesson::ref(const std::string& name) const { return steps_.ref(name); }

void Lesson::present() {
    presented_ = true;
    const std::size_t chosen = steps_.chosen(only_step_);  // steps_.size(): all of them
    const std::vector<Steps::Step>& all = steps_.all();
    if (list_steps_) {
        page_.title_once();
        for (std::size_t i = 0; i < all.size(); ++i) fmt::print("{:>2}  {:<16} {}\n", i + 1, all[i].name, all[i].heading);
        return;
    }
    // The dumps, the page and the grading hold every listed matrix, shown or not; the report of
    // one step (--step and --report: a page that computes draws the step in view first) holds
    // what that step computed.
    const bool one_step_report = files_.reporting() && chosen != all.size() && !files_.paging() && !grading_.grading();
    if (files_.dumping() || (document_.recording() && !one_step_report)) compute_parts();
    if (one_step_report) document_.hold_only_shown();
    keep_listed();
    // (with --step, the waits inside the step: chapter 22's tokens)
    pausing_ = pause_ && isatty(STDIN_FILENO);
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (chosen != all.size() && i != chosen) continue;
        page_.title_once();
        page_.heading(int(i + 1), all[i].heading);
        document_.step(int(i + 1), all[i].name, all[i].heading);
        all[i].show();
        if (chosen == all.size() && i + 1 < all.size()) pause(fmt::format("{} ({})", ref(all[i + 1].name), all[i + 1].name));
    }
    // While the listed matrices are alive: the result they belong to ends with run()'s body.
    if (document_.recording()) keep_document();
}

void Lesson::pause(const std::string& next) {
    std::fflush(stdout);  // through a pipe too, a step is read while the next one computes
    if (!pausing_) return;
    fmt::print(stderr, "\n── Enter: {} · Ctrl-C: stop ──", next);
    int c = 0;
    while ((c = std::getchar()) != EOF && c != '\n') {}
    if (c == EOF) pausing_ = false;  // the input ended: no more waiting
}

// The run's document, for --report and the page; under ./tutorial check it holds the verdict.
void Lesson::keep_document() {
    RunSummary summary{checks_.passed(), checks_.failed(), checks_.skipped(), grading_.grading(), {}};
    for (const auto& [name, difference] : grading_.verdicts()) summary.compared.push_back({name, difference});
    const std::string json = document_.json(program_, title_, listed_, summary);
    if (files_.paging()) {
        // A page that computes a sentence reads the trained model beside it (page_file).
        bool model = false;
        for (const auto& [name, make] : page_files_) {
            const std::string text = explorer_.computes() ? make() : std::string();
            if (!text.empty()) files_.keep_page_file(name, text);
            model = model || !text.empty();
        }
        const std::string live = command_line_.json(fmt::format(", \"arguments\": {}, \"model\": {}, \"text\": {}",
                                                                command_line_.given_json(), model, takes_text()));
        files_.keep_page(explorer_.html(title_, json, live));
    }
    if (files_.reporting()) files_.keep_report(json);
}

// A text ends its line: one '\n' is added unless it has one (a table's text does).
void Lesson::say(const std::string& text) {
    const std::string fitted = wrap_to_width(text, page_.style().line_width);
    page_.block(!fitted.empty() && fitted.back() == '\n' ? fitted : fitted + "\n");
    document_.text(text);
}

void Lesson::say_under(const std::string& text) {
    page_.under(text);
    document_.caption(text);
}

void Lesson::labels(const std::string& kind, Labels words) { listed_.labels(kind, std::move(words)); }

void Lesson::labels(const std::vector<std::pair<std::string, Labels>>& kinds) {
    for (const auto& [kind, words] : kinds) listed_.labels(kind, words);
}

void Lesson::list(const MatrixList& matrices) { listed_.add(matrices); }

void Lesson::show(const Matrix& matrix, const Style& style) {
    const ListedMatrix& m = find(matrix);
    page_.block(matrix_text(m, style));
    document_.matrix(style.are_indices ? "indices" : "matrix", m.name, style.decimal_places);
}

void Lesson::heat_map(const Matrix& matrix, const Style& style) {
    const ListedMatrix& m = find(matrix);
    if (style.drawn) draw_picture(m, style);
    document_.matrix("heat_map", m.name, style.decimal_places);
    page_.block(heat_map_text(m.name, m.formula, *m.matrix, listed_.row_labels(m), style.decimal_places,
                              page_.style().line_width));
}

void Lesson::show_side_by_side(const std::vector<SideBySide>& matrices) {
    if (matrices.empty()) return;
    std::vector<std::string> blocks;
    std::vector<std::pair<std::string, int>> recorded;
    for (const SideBySide& n : matrices) {
        const ListedMatrix& m = find(n.matrix);
        blocks.push_back(matrix_text(m, n.style));
        recorded.emplace_back(m.name, n.style.decimal_places);
    }
    document_.side_by_side(recorded);
    const std::string text = side_by_side(blocks, page_.style().line_width);
    page_.block(text.substr(text.find_first_not_of('\n')));  // the frame spaces the blocks
}

// A listed matrix's printed text; drawn too when its style asks.
std::string Lesson::matrix_text(const ListedMatrix& m, const Style& style) {
    if (style.drawn) draw_picture(m, style);
    PrintStyle print = page_.style();
    print.decimals = style.decimal_places;
    return format_matrix(m.name, m.formula, *m.matrix, listed_.row_labels(m), listed_.col_labels(m), print);
}

// A matrix drawn without being printed is on the page too: the chapter thought it worth a picture.
void Lesson::draw(const Matrix& matrix, const Style& style) {
    const ListedMatrix& m = find(matrix);
    draw_picture(m, style);
    document_.matrix("matrix", m.name, style.decimal_places);
}

void Lesson::draw_picture(const ListedMatrix& m, const Style& style) {
    constexpr std::size_t largest = 64;  // a bigger map is a blur of tiny cells, and a big file
    if (!files_.drawing() || rows(*m.matrix) > largest || cols(*m.matrix) > largest) return;
    files_.keep_picture(m.name, heat_map_svg(m.name, m.formula, *m.matrix, listed_.row_labels(m), listed_.col_labels(m),
                                           style.decimal_places));
}

void Lesson::compute_parts() {
    for (const std::unique_ptr<LessonPart>& part : parts_) part->compute();
}

// A listed matrix by the matrix itself (the result's own, not a copy); one not listed yet may
// belong to a part not computed yet.
const ListedMatrix& Lesson::find(const Matrix& matrix) {
    if (listed_.of(matrix) == nullptr) compute_parts();
    if (const ListedMatrix* m = listed_.of(matrix)) return *m;
    throw std::logic_error(fmt::format("a matrix ({} × {}) is shown but not in the chapter's list (lesson.list): "
                                       "show the result's own matrix, not a copy",
                                       rows(matrix), cols(matrix)));
}

// Every listed matrix, shown or not, for --dump and ./tutorial check.
void Lesson::keep_listed() {
    for (const ListedMatrix& m : listed_.all()) {
        grading_.compare(m.name, *m.matrix, listed_.row_labels(m), listed_.col_labels(m));
        files_.keep_matrix(m.name, *m.matrix, m.one_dimensional);
    }
}

void Lesson::table(const TextRow& header, const std::vector<TextRow>& body, std::size_t max_rows,
                   const std::vector<std::size_t>& bars) {
    // A column a learner cannot name is a column a learner cannot read.
    for (std::size_t c = 0; c < header.size(); ++c)
        if (header[c].empty()) throw std::logic_error(fmt::format("a table's column {} has no header", c + 1));
    std::vector<TextRow> shown;
    for (const std::size_t i : elided_indices(body.size(), max_rows))
        shown.push_back(i == elided ? TextRow{"⋮"} : body[i]);
    page_.block(format_table(header, shown, page_.style().line_width));
    document_.table(header, body, bars);
}

void Lesson::plot(const std::string& name, const std::string& title, const Axis& x, const Axis& y,
                  const std::vector<Series>& series) {
    if (!is_file_name(name)) throw std::logic_error("plot name '" + name + "' is not a file name");
    if (files_.drawing()) files_.keep_picture(name, line_plot_svg(title, x, y, series));
    document_.chart(name, title, x, y, series);
}

void Lesson::chart(const std::string& name, const std::string& title, const Axis& x, const Axis& y,
                   const std::vector<Series>& series, ChartOptions options) {
    std::vector<ChartSeries> marked;
    for (const Series& s : series) marked.push_back({s.label, s.mark.empty() ? "•" : s.mark, s.x, s.y});
    options.log_x = x.log, options.log_y = y.log;
    const std::size_t line_width = page_.style().line_width;
    const std::size_t margin = options.label_width + 2;  // the y labels and " │"
    if (line_width > margin + 20) options.width = std::min(options.width, line_width - margin);
    const char* scale = x.log && y.log ? " (log–log)" : x.log || y.log ? " (log scale)" : "";
    page_.block(fmt::format("{}\n{}", wrap_to_width(title + scale, line_width), terminal_chart(marked, options)));
    plot(name, title, x, y, series);
}
