// Self-checks: a chapter states a claim and the numbers that back it,
//
//   ✓ the loop and the matrix product agree (max error 2.4e-07, tolerance 1e-05)
//   ✗ rows sum to 1 (max error 3.0e-01, tolerance 1e-05)
//
// Any ✗ makes the chapter exit with code 1, so an edit that breaks a claim shows.
#pragma once

#include <string>

#include "common/matrix.hpp"

class SelfChecks {
public:
    // Holds when max_error ≤ tolerance (a NaN error never holds).
    bool close(const std::string& claim, double max_error, double tolerance);
    // Holds when `holds` is true.
    bool that(const std::string& claim, bool holds);

    int passed() const { return passed_; }
    int failed() const { return failed_; }

private:
    int passed_ = 0;
    int failed_ = 0;
};

// The largest |a − b| over all entries; infinity when the shapes differ or an
// entry is NaN, so a broken result can never look close.
double max_abs_difference(const Matrix& a, const Matrix& b);
