#include "common/lesson/explorer_page.hpp"

#include <fstream>
#include <optional>

#include <fmt/format.h>

#include "common/lesson/whole_file.hpp"
#include "common/math/input_error.hpp"

namespace {

// Where the page's script and style live, and Debian's d3 (set by CMake for this file).
const std::string script_path = std::string(TUTORIAL_EXPLORER_DIR) + "/explorer.js";
const std::string style_path = std::string(TUTORIAL_EXPLORER_DIR) + "/explorer.css";
const std::string d3_path = TUTORIAL_D3_JS;
const std::string live_script_path = std::string(TUTORIAL_EXPLORER_DIR) + "/live.js";
const std::string live_style_path = std::string(TUTORIAL_EXPLORER_DIR) + "/live.css";
const std::string wasm_dir = TUTORIAL_WASM_DIR;

std::string read_file(const std::string& path) {
    std::optional<std::string> text = whole_file(path);
    if (!text) throw InputError(fmt::format("--html: cannot read {}{}", path,
                                            path == d3_path ? " (Debian's node-d3: ./tutorial run installs it)" : ""));
    return std::move(*text);
}

}  // namespace

void ExplorerPage::start(const std::string& program) {
    style_ = read_file(style_path), d3_ = read_file(d3_path), script_ = read_file(script_path);
    const std::string pack = wasm_dir + "/" + program + ".pack";
    if (std::ifstream(pack).good()) {
        pack_ = read_file(pack);
        live_script_ = read_file(live_script_path), live_style_ = read_file(live_style_path);
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
            "<script id=\"wasm-binary\" type=\"application/octet-stream\">{}</script>\n<script>\n{}</script>\n",
            live_style_, live, pack_.substr(0, line_end), pack_.substr(line_end + 1), live_script_);
    }
    return fmt::format(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<title>{}</title>\n<style>\n{}</style></head>\n<body>\n<script>\n{}</script>\n"
        "<script id=\"lesson\" type=\"application/json\">\n{}\n</script>\n<script>\n{}</script>\n{}</body></html>\n",
        escaped_title, style_, d3_, document, script_, computes);
}
