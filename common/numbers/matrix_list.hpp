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
//
// A matrix also says what it is, when it is more than numbers: attention weights (drawn also as
// lines between tokens on the page of --html), scores, a mask, positions or indices; and which
// head and layer it belongs to (the page switches between a chapter's heads and layers):
//
//   {"weights", weights, "softmax(scaled_scores)", "tokens", "tokens", MatrixKind::attention_weights}
//   list.push_back(ListedMatrix("head0_weights", w0, "", "tokens", "tokens", MatrixKind::attention_weights)
//                      .in_family("head_weights", 0));
//
// A (layers × heads) table of one number per head (a score, a loss) can open each head: on the
// page a click on its cell (l, h) shows the member of layer l, head h of a family of matrices:
//
//   {ListedMatrix("previous_token_score", score, "mean of A_lh[i, i−1]", "layers", "heads")
//        .opens_heads("layer_head_weights")}
//
// A model's heads, one matrix each in the order [l·H + h], are listed in one call:
//
//   list_heads(list, weights, heads, "weights", "softmax(causal(q_h k_hᵀ / √d_h))", "tokens");
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "common/numbers/matrix.hpp"

enum class MatrixKind {
    general,            // numbers: embeddings, projections, outputs, tables of results
    attention_weights,  // softmax rows: how much each query reads each key
    scores,             // query · key dot products, before the softmax (scaled or masked too)
    mask,               // which keys each query may see (1 / 0, or 0 / −inf)
    indices,            // positions or indices: numbers to read, not amounts to compare
};

struct ListedMatrix {
    std::string name;     // a file name (letters, digits, '_'): <name>.npy, <name>.svg
    const Matrix* matrix;  // the result's own, not a copy
    std::string formula;  // "softmax(scores)"; empty: none
    std::string rows;     // the labels of the rows: "tokens", "dimensions", …; empty: numbered
    std::string cols;     // likewise for the columns
    MatrixKind kind = MatrixKind::general;
    std::string family;  // the matrices of which it is one per head and layer; empty: none
    int head = -1;       // the head it belongs to, from 0; -1: none
    int layer = -1;      // the layer it belongs to, as the chapter numbers them; -1: none
    bool one_dimensional = false;  // a (1 × n) row that --dump writes as shape (n,), as PyTorch's biases
    std::string opens;   // the family whose member of layer l, head h its cell (l, h) opens; empty: none

    ListedMatrix(std::string name_text, const Matrix& m, std::string formula_text, std::string row_labels = "",
                 std::string col_labels = "", MatrixKind what = MatrixKind::general)
        : name(std::move(name_text)),
          matrix(&m),
          formula(std::move(formula_text)),
          rows(std::move(row_labels)),
          cols(std::move(col_labels)),
          kind(what) {}
    // A temporary would be gone before the lesson prints it: list the result's own matrices.
    ListedMatrix(std::string, const Matrix&&, std::string, std::string = "", std::string = "",
                 MatrixKind = MatrixKind::general) = delete;

    // The same (1 × n) matrix, written by --dump as a 1-D array of shape (n,).
    ListedMatrix as_vector() const {
        ListedMatrix m = *this;
        m.one_dimensional = true;
        return m;
    }
    // The same matrix as one of a family, one matrix per head (and layer): head0_weights,
    // head1_weights, … are the family "head_weights". The page switches between its members.
    ListedMatrix in_family(std::string family_name, int head_index, int layer_index = -1) const {
        ListedMatrix m = *this;
        m.family = std::move(family_name), m.head = head_index, m.layer = layer_index;
        return m;
    }
    // The same matrix as a (layers × heads) table: its cell (l, h) opens the member of
    // `family` of layer l, head h (on the page, a click on the cell shows that head's map).
    ListedMatrix opens_heads(std::string family_name) const {
        ListedMatrix m = *this;
        m.opens = std::move(family_name);
        return m;
    }
};

using MatrixList = std::vector<ListedMatrix>;

// Every head's attention weights, [l·H + h], listed as layer<l>_head<h>_<what>: the family
// "layer_head_<what>", rows labelled `rows` and columns `cols`.
inline void list_heads(MatrixList& list, const std::vector<Matrix>& per_head, std::size_t heads,
                       const std::string& what, const std::string& formula, const std::string& rows,
                       const std::string& cols = "tokens") {
    for (std::size_t k = 0; k < per_head.size(); ++k) {
        const std::size_t l = k / heads, h = k % heads;
        list.push_back(ListedMatrix("layer" + std::to_string(l) + "_head" + std::to_string(h) + "_" + what,
                                    per_head[k], formula, rows, cols, MatrixKind::attention_weights)
                           .in_family("layer_head_" + what, int(h), int(l)));
    }
}
