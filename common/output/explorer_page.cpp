#include "common/output/explorer_page.hpp"

#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "common/machine/whole_file.hpp"
#include "common/numbers/input_error.hpp"

namespace {

// Where the page's script and style live, and Debian's d3 (set by CMake for this file).
const std::string explorer_dir = TUTORIAL_EXPLORER_DIR;
const std::string style_path = explorer_dir + "/draw/explorer.css";
const std::string d3_path = TUTORIAL_D3_JS;
const std::string live_style_path = explorer_dir + "/live/live.css";
const std::string pieces_path = explorer_dir + "/pieces.txt";
const std::string wasm_dir = TUTORIAL_WASM_DIR;

std::string read_file(const std::string& path) {
    std::optional<std::string> text = whole_file(path);
    if (!text) throw InputError(fmt::format("--html: cannot read {}{}", path,
                                            path == d3_path ? " (Debian's node-d3: ./tutorial run installs it)" : ""));
    return std::move(*text);
}

// The script's pieces under `folder` (draw/ or live/), in the order explorer/pieces.txt lists
// them (the page runs them so): each line a piece's path, then what it does; # a comment.
std::vector<std::string> pieces_in(const std::string& folder) {
    std::vector<std::string> pieces;
    std::istringstream lines(read_file(pieces_path));
    for (std::string line; std::getline(lines, line);) {
        const std::string path = line.substr(0, line.find(' '));
        if (path.rfind(folder, 0) == 0) pieces.push_back(path);
    }
    if (pieces.empty()) throw InputError(fmt::format("--html: {} lists no piece under {}", pieces_path, folder));
    return pieces;
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
    style_ = read_file(style_path), d3_ = read_file(d3_path), scripts_ = scripts_of(pieces_in("draw/"));
    const std::string pack = wasm_dir + "/" + program + ".pack";
    if (std::ifstream(pack).good()) {
        pack_ = read_file(pack);
        live_scripts_ = scripts_of(pieces_in("live/")), live_style_ = read_file(live_style_path);
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
