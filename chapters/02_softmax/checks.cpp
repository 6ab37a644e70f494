#include "chapters/02_softmax/checks.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "common/attention/softmax.hpp"
#include "common/reference/softmax_by_loops.hpp"

namespace {

// On 100 · scores the naive loop breaks (a weight not finite, or a row not summing to 1)
// exactly in the rows where Σ exp overflows.
bool naive_breaks_as_predicted(const NaiveAndStable& r) {
    const std::size_t n = rows(r.scores);
    bool as_predicted = true;
    for (std::size_t i = 0; i < n; ++i) {
        double sum = 0.0;
        bool finite = true;
        for (std::size_t j = 0; j < n; ++j) finite = finite && std::isfinite(r.naive_weights_x100(i, j));
        for (std::size_t j = 0; j < n; ++j) sum += r.naive_weights_x100(i, j);
        as_predicted = as_predicted && (!finite || std::abs(sum - 1.0) > 1e-3) == r.overflows_x100[i];
    }
    return as_predicted;
}

// softmax(s + c) = softmax(s): adds 10, 20, …, 100, then again, to the rows. A larger
// constant would round the scores themselves (a float near 3000, for a long --input, is
// spaced 2.4e-4).
double shift_error(const Matrix& scores) {
    Matrix shifted = scores;  // (n × n)
    for (std::size_t i = 0; i < rows(scores); ++i)
        for (std::size_t j = 0; j < cols(scores); ++j) shifted(i, j) += 10.0f * float(i % 10 + 1);
    return max_abs_difference(softmax_rows(shifted), softmax_rows(scores));
}

// In float32 a weight next to 1 is rounded to 1 once the others add up to less than 6e−8
// (the spacing of floats below 1): a row whose scores span 15 or more (exp(−15) ≈ 3e−7)
// may print a 1 and zeros, as the rows of 100 · scores do. Only the narrower rows count.
void check_strictly_inside(SelfChecks& check, const NaiveAndStable& r) {
    const std::size_t n = rows(r.scores);
    std::size_t narrow_rows = 0;
    bool strictly_inside = true;
    for (std::size_t i = 0; i < n; ++i) {
        const auto [low, high] = std::minmax_element(r.scores.begin() + std::ptrdiff_t(i * n),
                                                     r.scores.begin() + std::ptrdiff_t((i + 1) * n));
        if (n < 2 || *high - *low >= 15.0f) continue;  // one key alone always gets weight 1
        ++narrow_rows;
        for (std::size_t j = 0; j < n; ++j)
            strictly_inside = strictly_inside && r.stable_weights(i, j) > 0.0f && r.stable_weights(i, j) < 1.0f;
    }
    if (narrow_rows > 0)
        check.that(narrow_rows == n ? "every weight lies strictly between 0 and 1 at T = 1"
                                    : fmt::format("every weight lies strictly between 0 and 1 at T = 1 (in the "
                                                  "{} rows whose scores span less than 15)",
                                                  narrow_rows),
                   strictly_inside);
}

}  // namespace

void check_softmax(SelfChecks& check, const NaiveAndStable& r) {
    const std::size_t n = rows(r.scores);
    const std::size_t overflowing = std::size_t(std::count(r.overflows_x100.begin(), r.overflows_x100.end(), true));
    check.that("dividing by the sum gives a negative \"weight\" for a negative score", r.divided_by_sum(0, 1) < 0.0f);
    check.that(fmt::format("on 100 · scores the naive loop breaks in exactly the {} rows where Σ exp overflows",
                           overflowing),
               naive_breaks_as_predicted(r));
    check.that("the stable loop stays finite on 100 · scores", all_finite(r.stable_weights_x100));
    // The two loops round their n-term sums differently: they may differ by what a
    // sum of n floats may drift (row_sum_tolerance), relative to weights ≤ 1.
    const std::string agree_x100 = "naive and stable loops agree where Σ exp fits (100 · scores)";
    if (overflowing < n) check.close(agree_x100, r.naive_vs_stable_x100, row_sum_tolerance(n));
    else check.skip(agree_x100, "Σ exp overflows in every row");
    const std::string agree = "naive and stable loops agree where Σ exp fits (scores)";
    if (std::count(r.overflows.begin(), r.overflows.end(), false) > 0)
        check.close(agree, r.naive_vs_stable, row_sum_tolerance(n));
    else
        check.skip(agree, "Σ exp overflows in every row");
    check.close("the stable loop equals softmax_rows", max_abs_difference(stable_softmax_rows(r.scaled), r.weights),
                1e-7);
    // The independent reference: the definition evaluated in double, no float loop shared.
    check.close("softmax_rows equals the formula looped in double",
                max_abs_difference(r.weights, softmax_by_loops(r.scaled)), row_sum_tolerance(n));
    check.close("adding a constant to a row changes no weight", shift_error(r.scores), 1e-5);
    check_strictly_inside(check, r);
    check.that(fmt::format("every weight lies in [0, 1] at T = {:g}", r.temperature),
               std::all_of(r.weights.begin(), r.weights.end(), [](float p) { return p >= 0.0f && p <= 1.0f; }));
    check.close(fmt::format("rows sum to 1 at T = {:g}", r.temperature), worst_row_sum_error(r.weights),
                row_sum_tolerance(n));
    check.close("rows of 100 · scores (stable) sum to 1", worst_row_sum_error(r.stable_weights_x100),
                row_sum_tolerance(n));
    bool entropy_grows = true, largest_falls = true;
    for (std::size_t k = 1; k < r.sweep.size(); ++k) {
        entropy_grows = entropy_grows && r.sweep_entropy[k] >= r.sweep_entropy[k - 1] - 1e-6;
        largest_falls = largest_falls && r.sweep_largest[k] <= r.sweep_largest[k - 1] + 1e-6;
    }
    check.that("a higher T never lowers the mean entropy nor raises the mean largest weight",
               entropy_grows && largest_falls);
}
