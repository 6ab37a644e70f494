// A weighted sum spelled out, term by term, largest weight first:
//
//   sat = 0.15·sat + 0.12·mat + 0.12·cat + 0.11·was + … (5 more, total 0.51)
//
// A row of attention weights says how much of each value a query takes:
// output_i = Σ_j w_ij v_j. Written as named terms, the row shows at a glance
// which tokens (or which people of a phonebook) a query listens to.
#pragma once

#include <string>
#include <vector>

#include "common/numbers/matrix.hpp"

struct Term {
    std::size_t index;  // which value (row of V, column of weights)
    float weight;       // w_ij
};

struct Combination {
    std::vector<Term> terms;  // every term of the row, largest weight first (equal weights: in row order)
    std::size_t shown = 0;    // the first `shown` terms are written out, the others grouped as "…"
};

// Row `row` of weights (n × m) as a combination. At most `most` terms are written
// out, and none whose weight is below `smallest` (but always at least one).
Combination combination_of_row(const Matrix& weights, std::size_t row, std::size_t most = 4,
                               float smallest = 0.0f);

// "0.15·sat + 0.12·mat + … (5 more, total 0.51)": weights with `decimals` digits,
// each named by labels[index].
std::string format_combination(const Combination& combination, const Labels& labels, int decimals = 2);

// Every row of weights (n × n) as "token = 0.15·sat + …", one line each; more than
// 16 rows (a long --input) as the first and last five, with ⋮ between.
std::string combinations_of_rows(const Matrix& weights, const Labels& tokens);

// Σ_terms weight · values[index], summed in the order of the terms: the vector the
// combination stands for. values (m × d_v) → (1 × d_v)
Matrix combine_rows(const Combination& combination, const Matrix& values);
