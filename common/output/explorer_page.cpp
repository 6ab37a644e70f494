#include "common/output/explorer_page.hpp"

#include <fstream>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "common/machine/whole_file.hpp"
#include "common/numbers/input_error.hpp"

namespace {

// Where the page's script and style live, and Debian's d3 (set by CMake for this file).
const std::string explorer_dir = TUTORIAL_EXPLORER_DIR;
const std::string style_path = explorer_dir + "/explorer.css";
const std::string d3_path = TUTORIAL_D3_JS;
const std::string live_style_path = explorer_dir + "/live.css";
const std::string wasm_dir = TUTORIAL_WASM_DIR;

// The page's script, in pieces of one job each (explorer/*.js), in the order the page runs
// them: a piece uses what the pieces before it define, and the last one draws the page.
const std::vector<std::string> script_pieces = {
    "dom.js",              // el, svgEl, text widths
    "numbers.js",          // a value as printed, a heat map's range
    "colours.js",          // viridis, grey, white or black text
    "tooltip.js",          // the tooltip
    "heat_map.js",         // a matrix as a heat map
    "head_view.js",        // attention weights as lines from queries to keys
    "text_and_tables.js",  // prose, tables, self-checks, tables of indices
    "charts.js",           // a chart of series
    "families.js",         // the heads and layers of a family, its model view, tables that open heads
    "matrix_view.js",      // one matrix with its title and its family's buttons
    "steps.js",            // the steps as sections, drawn in slices
    "presentation.js",     // a step as screens that fit the window
    "navigation.js",       // the bar of steps, the keys, the URL
    "draw_lesson.js",      // window.drawLesson, and the first drawing
};
// And those of a page that computes, after the WebAssembly they run.
const std::vector<std::string> live_pieces = {
    "live_worker.js",      // the Web Worker that runs the chapter
    "live_knobs.js",       // the flags as knobs, the arguments in the URL
    "live_progress.js",    // the status line, the progress bar, the stop button
    "live_runs.js",        // a change reruns the chapter; its document drawn
    "live_one_more.js",    // a count's "one more" button and "play" (chapter 22's next token)
    "live_start.js",       // the knobs put on the page, the first run
};

std::string read_file(const std::string& path) {
    std::optional<std::string> text = whole_file(path);
    if (!text) throw InputError(fmt::format("--html: cannot read {}{}", path,
                                            path == d3_path ? " (Debian's node-d3: ./tutorial run installs it)" : ""));
    return std::move(*text);
}

// The pieces as <script> elements, one each, in order (every one read, or an InputError).
std::string scripts_of(const std::vector<std::string>& pieces) {
    std::string scripts;
    for (const std::string& piece : pieces)
        scripts += fmt::format("<script>\n{}</script>\n", read_file(explorer_dir + "/" + piece));
    return scripts;
}

}  // namespace

void ExplorerPage::start(const std::string& program) {
    style_ = read_file(style_path), d3_ = read_file(d3_path), scripts_ = scripts_of(script_pieces);
    const std::string pack = wasm_dir + "/" + program + ".pack";
    if (std::ifstream(pack).good()) {
        pack_ = read_file(pack);
        live_scripts_ = scripts_of(live_pieces), live_style_ = read_file(live_style_path);
    }
}

std::string ExplorerPage::html(const std::string& title, const std::string& document, const std::string& live) const {
    // A title holds no markup, but a learner's --input may put '<' or '&' in a token.
    std::string escaped_title;
    for (const char c : title) escaped_title += c == '<' ? "&lt;" : c == '&' ? "&amp;" : std::string(1, c);
    std::string computes;  // the program and its knobs, for a page that computes
    if (!pack_.empty()) {
        const std::size_t line_end = pack_.find('\n');
        computes = fmt::format(
            "<style>\n{}</style>\n<script id=\"live\" type=\"application/json\">\n{}\n</script>\n"
            "<script id=\"wasm-glue\" type=\"application/octet-stream\">{}</script>\n"
            "<script id=\"wasm-binary\" type=\"application/octet-stream\">{}</script>\n{}",
            live_style_, live, pack_.substr(0, line_end), pack_.substr(line_end + 1), live_scripts_);
    }
    return fmt::format(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<title>{}</title>\n<style>\n{}</style></head>\n<body>\n<script>\n{}</script>\n"
        "<script id=\"lesson\" type=\"application/json\">\n{}\n</script>\n{}{}</body></html>\n",
        escaped_title, style_, d3_, document, scripts_, computes);
}
