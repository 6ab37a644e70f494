#include "common/lesson/compare.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/display/print.hpp"

namespace {

std::string label(const Labels& labels, std::size_t i) { return i < labels.size() ? labels[i] : std::to_string(i); }

bool near(float got, float expected, float tolerance) {
    if (std::isnan(got) || std::isnan(expected)) return std::isnan(got) && std::isnan(expected);
    if (std::isinf(got) || std::isinf(expected)) return got == expected;
    return std::abs(got - expected) <= tolerance;
}

// The same factor everywhere: got ≈ c · expected for one c ≠ 1.
bool constant_ratio(const Matrix& got, const Matrix& expected, double& factor) {
    double sum_ge = 0.0, sum_ee = 0.0;
    for (std::size_t k = 0; k < got.size(); ++k) {
        sum_ge += double(got.flat(k)) * expected.flat(k);
        sum_ee += double(expected.flat(k)) * expected.flat(k);
    }
    if (sum_ee == 0.0) return false;
    factor = sum_ge / sum_ee;
    double worst = 0.0, largest = 0.0;
    for (std::size_t k = 0; k < got.size(); ++k) {
        worst = std::max(worst, std::abs(got.flat(k) - factor * expected.flat(k)));
        largest = std::max(largest, std::abs(double(got.flat(k))));
    }
    return std::abs(factor - 1.0) > 1e-3 && worst <= 1e-4 * std::max(1.0, largest);
}

// Every row sums to 1 in `m`, or every column does.
bool sums_to_one(const Matrix& m, bool by_rows) {
    const std::size_t outer = by_rows ? rows(m) : cols(m), inner = by_rows ? cols(m) : rows(m);
    if (outer == 0) return false;
    for (std::size_t a = 0; a < outer; ++a) {
        double sum = 0.0;
        for (std::size_t b = 0; b < inner; ++b) sum += by_rows ? m(a, b) : m(b, a);
        if (std::abs(sum - 1.0) > 1e-3) return false;
    }
    return true;
}

// A likely cause, when the pattern of the difference is one that people make.
std::string likely_cause(const Matrix& got, const Matrix& expected) {
    if (got.shape() == xt::transpose(expected).shape() && rows(got) != cols(got))
        return "the shape is the transpose of the expected one: a product in the wrong order, or a missing ᵀ?";
    if (std::all_of(got.begin(), got.end(), [](float v) { return v == 0.0f; }))
        return "every entry is 0: is the computation still to be written (the TODO)?";
    double factor = 1.0;
    if (constant_ratio(got, expected, factor) && std::abs(factor) > 1e-6) {
        const double square = factor * factor, inverse_square = 1.0 / (factor * factor);
        std::string which;
        if (std::abs(square - std::round(square)) < 1e-3 && std::round(square) > 1.0)
            which = " = √" + format_number(std::round(square), 0);
        else if (std::abs(inverse_square - std::round(inverse_square)) < 1e-3 && std::round(inverse_square) > 1.0)
            which = " = 1/√" + format_number(std::round(inverse_square), 0);
        return fmt::format("every entry is off by the same factor {:.4g}{}: is a scaling (1/√d_k) missing, doubled, "
                           "or taken with the wrong width?", factor, which);
    }
    if (sums_to_one(expected, true) && !sums_to_one(got, true)) {
        if (sums_to_one(got, false))
            return "the columns sum to 1 and the rows do not: the softmax ran over the wrong axis";
        return "the rows should sum to 1 and do not: is the softmax normalised (divided by its row's sum)?";
    }
    if (rows(got) == cols(got) && rows(got) == rows(expected) && cols(got) == cols(expected)) {
        bool transposed = true;
        for (std::size_t i = 0; i < rows(got) && transposed; ++i)
            for (std::size_t j = 0; j < cols(got) && transposed; ++j)
                transposed = std::abs(got(i, j) - expected(j, i)) <= 1e-4f * (1.0f + std::abs(expected(j, i)));
        if (transposed) return "it is the transpose of the expected matrix: rows and columns swapped";
    }
    return "";
}

}  // namespace

std::string describe_difference(const std::string& name, const Matrix& got, const Matrix& expected,
                                const Labels& row_labels, const Labels& col_labels) {
    if (got.shape() != expected.shape()) {
        std::string out = fmt::format("{}: expected shape {}, got {}", name, shape_text(expected), shape_text(got));
        const std::string cause = likely_cause(got, expected);
        return cause.empty() ? out : out + "\n  likely: " + cause;
    }
    float largest = 0.0f;
    for (const float v : expected)
        if (std::isfinite(v)) largest = std::max(largest, std::abs(v));
    // float32 keeps about 7 digits; sums over a row lose a few more.
    const float tolerance = 1e-4f * std::max(1.0f, largest);
    for (std::size_t i = 0; i < rows(got); ++i)
        for (std::size_t j = 0; j < cols(got); ++j)
            if (!near(got(i, j), expected(i, j), tolerance)) {
                // Whole numbers (ids, counts) as whole numbers: "expected 1, got 62", not 1.0000.
                const bool whole = std::abs(expected(i, j)) < 1e7f && std::abs(got(i, j)) < 1e7f &&
                                   expected(i, j) == std::round(expected(i, j)) && got(i, j) == std::round(got(i, j));
                std::string out = fmt::format("{}[{}, {}]: expected {}, got {}", name, label(row_labels, i),
                                              label(col_labels, j), format_number(expected(i, j), whole ? 0 : 4),
                                              format_number(got(i, j), whole ? 0 : 4));
                const std::string cause = likely_cause(got, expected);
                return cause.empty() ? out : out + "\n  likely: " + cause;
            }
    return "";
}
