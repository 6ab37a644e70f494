#include "common/output/run_files.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xnpy.hpp>

#include "common/display/fit_width.hpp"
#include "common/numbers/input_error.hpp"
#include "common/output/output_files.hpp"

bool is_file_name(const std::string& name) {
    // a dot inside, never first, last or twice in a row: PyTorch's names (transformer.h.0.ln_1.weight)
    return !name.empty() && name.front() != '.' && name.back() != '.' && name.find("..") == std::string::npos &&
           std::all_of(name.begin(), name.end(), [](char c) {
               return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
           });
}

namespace {

// Adds or replaces (the last one kept is the one written).
template <class T>
void keep(std::vector<std::pair<std::string, T>>& kept, const std::string& name, T value) {
    if (!is_file_name(name)) throw std::logic_error("'" + name + "' is not a file name");
    for (auto& [kept_name, old] : kept)
        if (kept_name == name) {
            old = std::move(value);
            return;
        }
    kept.emplace_back(name, std::move(value));
}

}  // namespace

void RunFiles::set_directories(const std::string& dump_dir, const std::string& svg_dir, const std::string& html_dir) {
    dump_dir_ = dump_dir, svg_dir_ = svg_dir, html_dir_ = html_dir;
    if (dumping()) require_writable_directory("--dump", dump_dir_);
    if (drawing()) require_writable_directory("--svg", svg_dir_);
    if (paging()) require_writable_directory("--html", html_dir_);
}

void RunFiles::set_report_file(const std::string& path) {
    report_path_ = path;
    if (!reporting()) return;
    require_writable_file("--report", report_path_);
    // A report replaces an earlier report (or an empty file), never another file:
    // `--report data/embeddings.csv`, typed for --input, would otherwise overwrite the learner's data.
    std::ifstream existing(report_path_, std::ios::binary);
    char start[10] = {};
    existing.read(start, sizeof start);
    if (existing.gcount() > 0 && std::string(start, sizeof start) != "{\"schema\":")
        throw InputError("--report " + report_path_ + ": a file that is not a report is there; name a new file "
                         "(a report replaces only an earlier report)");
}

void RunFiles::keep_matrix(const std::string& name, const Matrix& m, bool one_dimensional) {
    if (!dumping()) return;
    keep(matrices_, name, Matrix(m));
    if (one_dimensional && rows(m) == 1) one_dimensional_.push_back(name);
}

void RunFiles::keep_picture(const std::string& name, std::string svg) {
    if (drawing()) keep(pictures_, name, std::move(svg));
}

void RunFiles::write(std::size_t line_width) const {
    OutputFiles files;
    // The page first: with too little room, the one file learners open is the first refused.
    if (paging() && !page_.empty()) files.add(html_dir_ + "/index.html", page_);
    if (paging())
        for (const auto& [name, content] : page_files_) files.add(html_dir_ + "/" + name, content);
    if (reporting() && !report_.empty()) files.add(report_path_, report_);
    std::string dumped, drawn;
    for (const auto& [name, m] : matrices_) {
        const bool vector = std::find(one_dimensional_.begin(), one_dimensional_.end(), name) != one_dimensional_.end();
        files.add(dump_dir_ + "/" + name + ".npy", vector ? xt::dump_npy(Vector(xt::flatten(m))) : xt::dump_npy(m));
        dumped += (dumped.empty() ? "" : ", ") + name + ".npy";
    }
    for (const auto& [name, svg] : pictures_) {
        files.add(svg_dir_ + "/" + name + ".svg", svg);
        drawn += (drawn.empty() ? "" : ", ") + name + ".svg";
    }
    files.write_all();
    // The file names, many of them, wrap to the width like the lesson's text (indented under the first).
    const auto said = [line_width](const std::string& text) { return wrap_to_width(text, line_width, 2); };
    if (dumping()) fmt::print("\n{}\n", said(fmt::format("Wrote {} matrices to {}/: {}", matrices_.size(), dump_dir_, dumped)));
    if (drawing() && pictures_.empty())
        fmt::print("\n{}\n", said(fmt::format("Drew no picture: the steps shown hold none to draw ({}/ is empty)", svg_dir_)));
    else if (drawing())
        fmt::print("\n{}\n", said(fmt::format("Wrote {} picture{} to {}/{}", pictures_.size(),
                                               pictures_.size() == 1 ? "" : "s", svg_dir_, drawn.empty() ? "" : ": " + drawn)));
    if (paging() && !page_.empty())
        fmt::print("\n{}\n", said(fmt::format("Wrote the page {}/index.html (open it in a browser)", html_dir_)));
}
