// How lesson.show() presents a matrix, said where it is shown: the formula in
// its title, the labels of its rows and columns, the decimals, and whether
// --svg draws its heat map. Only what differs from the defaults is set, by name:
//
//   lesson.show("weights", r.weights, ShowAs("softmax(scores)").labels(tokens, tokens).heat_map());
//   lesson.show("W_QK", r.W_QK, ShowAs("W_Q · W_Kᵀ").labels(dims, dims).decimals(1));
//   lesson.show("X", seq.X, ShowAs().labels(seq.tokens, seq.dimensions));
#pragma once

#include <string>
#include <utility>

#include "common/math/matrix.hpp"

struct ShowAs {
    std::string formula;     // "Q · Kᵀ": printed after the name (empty: none)
    Labels row_labels;       // empty: rows numbered from 0
    Labels col_labels;       // likewise for columns
    int decimal_places = 3;  // digits after the point
    bool drawn = false;      // with --svg: a heat map as <name>.svg

    ShowAs() = default;
    explicit ShowAs(std::string formula_text) : formula(std::move(formula_text)) {}

    ShowAs& labels(Labels rows, Labels cols) {
        row_labels = std::move(rows);
        col_labels = std::move(cols);
        return *this;
    }
    ShowAs& decimals(int places) {
        decimal_places = places;
        return *this;
    }
    // Attention maps, masks and positional encodings are what a picture teaches;
    // a matrix larger than 64 × 64 is not drawn (a blur of tiny cells, a big file).
    ShowAs& heat_map() {
        drawn = true;
        return *this;
    }
};
