#include "common/output/listed_matrices.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "common/output/run_files.hpp"

void ListedMatrices::labels(const std::string& kind, Labels words) {
    if (kind.empty()) throw std::logic_error("a kind of label needs a name");
    for (const auto& known : kinds_)
        if (known.first == kind) throw std::logic_error("the labels '" + kind + "' are given twice");
    kinds_.emplace_back(kind, std::move(words));
}

void ListedMatrices::add(const MatrixList& matrices) {
    for (const ListedMatrix& m : matrices) {
        if (!is_file_name(m.name)) throw std::logic_error("matrix name '" + m.name + "' is not a file name");
        for (const ListedMatrix& kept : list_)
            if (kept.name == m.name) throw std::logic_error("two listed matrices are named '" + m.name + "'");
        list_.push_back(m);
    }
}

const ListedMatrix* ListedMatrices::of(const Matrix& matrix) const {
    const ListedMatrix* found = nullptr;
    for (const ListedMatrix& m : list_) {
        if (m.matrix != &matrix) continue;
        if (found) throw std::logic_error("one matrix is listed twice, as '" + found->name + "' and '" + m.name + "'");
        found = &m;
    }
    return found;
}

const Labels& ListedMatrices::words(const std::string& kind, std::size_t count, const std::string& name) const {
    static const Labels numbered_from_0;
    if (kind.empty()) return numbered_from_0;
    for (const auto& [known, words] : kinds_)
        if (known == kind) {
            if (words.size() != count)
                throw std::logic_error(
                    fmt::format("{}: {} labels '{}' for {} rows or columns", name, words.size(), kind, count));
            return words;
        }
    throw std::logic_error(name + ": no labels '" + kind + "' (lesson.labels)");
}
