#include "common/lesson/combination.hpp"

#include "common/display/elide.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/display/elide.hpp"
#include "common/display/print.hpp"

Combination combination_of_row(const Matrix& weights, std::size_t row, std::size_t most, float smallest) {
    Combination combination;
    for (std::size_t j = 0; j < cols(weights); ++j) combination.terms.push_back({j, weights(row, j)});
    std::stable_sort(combination.terms.begin(), combination.terms.end(),
                     [](const Term& a, const Term& b) { return a.weight > b.weight; });
    while (combination.shown < combination.terms.size() && combination.shown < most &&
           (combination.shown == 0 || combination.terms[combination.shown].weight >= smallest))
        ++combination.shown;
    return combination;
}

std::string format_combination(const Combination& combination, const Labels& labels, int decimals) {
    std::string text;
    for (std::size_t t = 0; t < combination.shown; ++t) {
        const Term& term = combination.terms[t];
        const std::string name = term.index < labels.size() ? labels[term.index] : std::to_string(term.index);
        text += fmt::format("{}{}·{}", t == 0 ? "" : " + ", format_number(term.weight, decimals), name);
    }
    const std::size_t rest = combination.terms.size() - combination.shown;
    if (rest > 0) {
        float total = 0.0f;
        for (std::size_t t = combination.shown; t < combination.terms.size(); ++t)
            total += combination.terms[t].weight;
        text += fmt::format(" + … ({} more, total {})", rest, format_number(total, decimals));
    }
    return text;
}

Matrix combine_rows(const Combination& combination, const Matrix& values) {
    Matrix sum = Matrix::from_shape({1, cols(values)});
    sum.fill(0.0f);
    for (const Term& term : combination.terms)
        for (std::size_t d = 0; d < cols(values); ++d) sum(0, d) += term.weight * values(term.index, d);
    return sum;
}

std::string combinations_of_rows(const Matrix& weights, const Labels& tokens) {
    std::string text;
    for (const std::size_t i : elided_indices(rows(weights))) {
        if (!text.empty()) text += "\n";
        text += i == elided ? "⋮"
                            : tokens[i] + " = " + format_combination(combination_of_row(weights, i, 4, 0.02f), tokens);
    }
    return text;
}
