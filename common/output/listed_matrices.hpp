// The chapter's list of matrices (common/numbers/matrix_list.hpp) and the words of its
// labels: the frame finds a matrix here by the matrix itself, with its name, formula and labels.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/numbers/matrix_list.hpp"

class ListedMatrices {
public:
    // The words of a kind of label: labels("tokens", seq.tokens).
    void labels(const std::string& kind, Labels words);
    // Adds matrices; a name listed twice is the chapter's mistake (std::logic_error).
    void add(const MatrixList& matrices);

    // The entry that lists this very matrix (the result's own), or nullptr; listed under two
    // names, it is the chapter's mistake (std::logic_error): which name would a step print?
    const ListedMatrix* of(const Matrix& matrix) const;
    // The words of `kind` for `count` rows or columns of the matrix `name`; none (numbered
    // from 0) for an empty kind. A kind with another count is the chapter's mistake.
    const Labels& words(const std::string& kind, std::size_t count, const std::string& name) const;
    const Labels& row_labels(const ListedMatrix& m) const { return words(m.rows, rows(*m.matrix), m.name); }
    const Labels& col_labels(const ListedMatrix& m) const { return words(m.cols, cols(*m.matrix), m.name); }

    const MatrixList& all() const { return list_; }

private:
    MatrixList list_;
    std::vector<std::pair<std::string, Labels>> kinds_;
};
