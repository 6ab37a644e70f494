// The matrices of a chapter's result, listed once: each with its name, its formula
// and which labels its rows and columns carry. The lesson prints a matrix by its
// name from this list, and writes (--dump), draws (--svg) and grades (./tutorial
// check) every matrix of it, shown or not:
//
//   struct DotProductScores {
//       Matrix scores;  // (n × n)
//       MatrixList matrices() const { return {{"scores", scores, "X · Xᵀ", "tokens", "tokens"}}; }
//   };
//
// The labels are named, not given: the mathematics knows that the rows are tokens,
// the lesson knows the words (lesson.labels("tokens", seq.tokens)). An empty name
// numbers the rows or columns from 0.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "common/math/matrix.hpp"

struct ListedMatrix {
    std::string name;     // a file name (letters, digits, '_'): <name>.npy, <name>.svg
    const Matrix* matrix;  // the result's own, not a copy
    std::string formula;  // "softmax(scores)"; empty: none
    std::string rows;     // the labels of the rows: "tokens", "dimensions", …; empty: numbered
    std::string cols;     // likewise for the columns

    ListedMatrix(std::string name_text, const Matrix& m, std::string formula_text, std::string row_labels = "",
                 std::string col_labels = "")
        : name(std::move(name_text)),
          matrix(&m),
          formula(std::move(formula_text)),
          rows(std::move(row_labels)),
          cols(std::move(col_labels)) {}
    // A temporary would be gone before the lesson prints it: list the result's own matrices.
    ListedMatrix(std::string, const Matrix&&, std::string, std::string = "", std::string = "") = delete;
};

using MatrixList = std::vector<ListedMatrix>;
