// Self-checks: a chapter states a claim and the numbers that back it,
//
//   ✓ the loop and the matrix product agree (max error 2.4e-07, tolerance 1e-05)
//   ✗ rows sum to 1 (max error 3.0e-01, tolerance 1e-05)
//   · the heads attend differently: not checked (one token: every weight is 1)
//
// Any ✗ makes the chapter exit with code 1, so an edit that breaks a claim shows.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "common/numbers/matrix.hpp"

class SelfChecks {
public:
    // Holds when max_error ≤ tolerance (a NaN error never holds).
    bool close(const std::string& claim, double max_error, double tolerance);
    // Holds when `holds` is true.
    bool that(const std::string& claim, bool holds);
    // A claim that does not apply to this run (say, a claim about the default
    // sentence when the learner gave --input): printed, neither ✓ nor ✗.
    //   · each French word looks most at its translation: not checked (only the default pair has one)
    void skip(const std::string& claim, const std::string& why);

    // Also hands each line's mark (✓, ✗ or ·) and text to `listener` (the page of --html).
    void on_line(std::function<void(const std::string& mark, const std::string& text)> listener) {
        listener_ = std::move(listener);
    }

    // Lines wider than this wrap, their continuation indented under the claim.
    void set_line_width(std::size_t width) { line_width_ = width; }

    int passed() const { return passed_; }
    int failed() const { return failed_; }
    int skipped() const { return skipped_; }  // the · lines
    // Lines printed so far (✓, ✗ and ·).
    int printed() const { return passed_ + failed_ + skipped_; }

private:
    int passed_ = 0;
    int failed_ = 0;
    int skipped_ = 0;
    std::size_t line_width_ = 100;
    std::function<void(const std::string&, const std::string&)> listener_;
    void print(const std::string& mark, const std::string& text) const;
};

// The largest |a − b| over all entries; infinity when the shapes differ or an
// entry is NaN, so a broken result can never look close.
double max_abs_difference(const Matrix& a, const Matrix& b);

// The largest |Σ_j weights(i, j) − 1| over the rows; infinity when a row
// holds NaN, like max_abs_difference.
double worst_row_sum_error(const Matrix& weights);

// How far a float32 sum of `terms` weights may drift from 1: each addition may
// round by one unit in the last place (FLT_EPSILON), so the bound grows with the
// row length; never below 1e-6. A 300-token row gets 3.6e-05.
double row_sum_tolerance(std::size_t terms);

// An absolute tolerance for results of the size of `reference`: float32 keeps
// about 7 significant digits, so an error of 1e-5 is noise next to values of 1e6.
// tolerance · max(1, max |reference|).
double scaled_tolerance(double tolerance, const Matrix& reference);
