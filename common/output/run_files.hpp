// The files a run writes: every listed matrix as DIR/<name>.npy (--dump), the
// pictures as DIR/<name>.svg (--svg), the page as DIR/index.html (--html) and the run's
// document as FILE (--report). Kept while the lesson runs, written at its end all or none
// (common/output/output_files.hpp), then named in one line each (the report, read by
// programs, in none: a run's printed lesson stays the same with it).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/numbers/matrix.hpp"

class RunFiles {
public:
    // The directories of --dump, --svg and --html (empty: not asked), checked to be
    // writable now, before anything is computed.
    void set_directories(const std::string& dump_dir, const std::string& svg_dir, const std::string& html_dir);
    bool dumping() const { return !dump_dir_.empty(); }
    bool drawing() const { return !svg_dir_.empty(); }
    bool paging() const { return !html_dir_.empty(); }
    // The file of --report (empty: not asked), checked now to be one that can be written.
    void set_report_file(const std::string& path);
    bool reporting() const { return !report_path_.empty(); }

    // Keeps a matrix for --dump (a (1 × n) one as shape (n,) when one_dimensional); kept again
    // under the same name, the last one is written.
    void keep_matrix(const std::string& name, const Matrix& m, bool one_dimensional = false);
    // Keeps a picture's SVG text for --svg; likewise.
    void keep_picture(const std::string& name, std::string svg);
    // Keeps the page's HTML for --html.
    void keep_page(std::string html) { page_ = std::move(html); }
    // Keeps a file the page reads, DIR/<name> beside it (its trained model, common/language_model/page_model.hpp).
    void keep_page_file(const std::string& name, std::string content) { page_files_.emplace_back(name, std::move(content)); }
    // Keeps the run's document (JSON) for --report.
    void keep_report(std::string json) { report_ = std::move(json); }
    // Writes them all or none, then prints "Wrote …" lines, wrapped to `line_width` columns.
    void write(std::size_t line_width) const;

private:
    std::string dump_dir_, svg_dir_, html_dir_, report_path_;
    std::string page_, report_;
    std::vector<std::pair<std::string, Matrix>> matrices_;
    std::vector<std::string> one_dimensional_;  // the names of matrices_ written as shape (n,)
    std::vector<std::pair<std::string, std::string>> pictures_;  // name, SVG text
    std::vector<std::pair<std::string, std::string>> page_files_;  // name, content
};

// Letters, digits and '_': a name that is also a file name.
bool is_file_name(const std::string& name);
