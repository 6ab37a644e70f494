// Printing, the project's random generator and self-checks.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <set>

#include "common/display/fit_width.hpp"
#include "common/display/print.hpp"
#include "common/display/side_by_side.hpp"
#include "common/display/text_table.hpp"
#include "common/display/text_width.hpp"
#include "common/lesson/self_check.hpp"
#include "common/numbers/random.hpp"

TEST_CASE("numbers print with fixed decimals, and never as -0.000") {
    CHECK(format_number(0.12345f, 3) == "0.123");
    CHECK(format_number(-0.00004f, 3) == "0.000");
    CHECK(format_number(-0.0f, 2) == "0.00");
    CHECK(format_number(-1.5f, 1) == "-1.5");
    CHECK(format_number(std::numeric_limits<float>::infinity(), 3) == "inf");
    CHECK(format_number(-std::numeric_limits<float>::infinity(), 3) == "-inf");
    CHECK(format_number(std::nanf(""), 3) == "nan");
}

TEST_CASE("a matrix prints with its title, shape and labels") {
    const Matrix m = {{1.0f, 0.25f}, {-0.5f, 2.0f}};
    const std::string text = format_matrix("scores", "X · Xᵀ", m, {"cat", "mat"}, {"cat", "mat"}, PrintStyle{});
    CHECK(text ==
          "scores = X · Xᵀ   (2 × 2)\n"
          "        cat     mat\n"
          "cat   1.000   0.250\n"
          "mat  -0.500   2.000\n");
}

TEST_CASE("a large matrix is elided like numpy: first and last rows and columns") {
    Matrix m = Matrix::from_shape({30, 20});
    for (std::size_t i = 0; i < m.size(); ++i) m.flat(i) = float(i);
    PrintStyle style;
    style.decimals = 0;
    const std::string text = format_matrix("big", "", m, {}, {}, style);
    std::size_t lines = 0;
    for (const char c : text) lines += c == '\n';
    CHECK(lines == 1 + 1 + 5 + 1 + 5);  // title, column labels, 5 rows, ⋮, 5 rows
    CHECK(text.find("⋮") != std::string::npos);
    CHECK(text.find("…") != std::string::npos);
    CHECK(text.find("599") != std::string::npos);  // the last entry is shown
    CHECK(text.find(" 300 ") == std::string::npos);  // a middle row is not
}

TEST_CASE("colour shading only when asked, and the plain form has no escape codes") {
    const Matrix m = {{0.0f, 1.0f}};
    PrintStyle plain;
    CHECK(format_matrix("w", "", m, {"a"}, {"x", "y"}, plain).find('\x1b') == std::string::npos);
    PrintStyle color;
    color.color = true;
    CHECK(format_matrix("w", "", m, {"a"}, {"x", "y"}, color).find('\x1b') != std::string::npos);
}

TEST_CASE("the random generator gives the same numbers on every machine") {
    Random a(1234), b(1234), c(1235);
    const std::uint64_t first = a.next_u64();
    CHECK(first == b.next_u64());
    CHECK(first != c.next_u64());
    // splitmix64 from state 0: the reference value of the published algorithm
    Random zero(0);
    CHECK(zero.next_u64() == 0xE220A8397B1DCDAFULL);
}

TEST_CASE("normal samples have mean 0 and variance 1") {
    Random random(99);
    const std::size_t count = 200000;
    double sum = 0.0, sum2 = 0.0;
    for (std::size_t i = 0; i < count; ++i) {
        const double x = random.normal();
        sum += x;
        sum2 += x * x;
    }
    const double mean = sum / count, variance = sum2 / count - mean * mean;
    // standard errors: 1/√N ≈ 0.0022 for the mean, √(2/N) ≈ 0.0032 for the variance
    CHECK(std::fabs(mean) < 0.011);
    CHECK(std::fabs(variance - 1.0) < 0.016);
}

TEST_CASE("self-checks count ✓ and ✗, and a NaN error never passes") {
    SelfChecks checks;
    CHECK(checks.close("small error", 1e-7, 1e-5));
    CHECK_FALSE(checks.close("large error", 1e-3, 1e-5));
    CHECK_FALSE(checks.close("nan error", std::nan(""), 1e-5));
    CHECK(checks.that("true claim", true));
    CHECK(checks.passed() == 2);
    CHECK(checks.failed() == 2);
}

TEST_CASE("max_abs_difference: exact, and infinite for other shapes or NaN") {
    const Matrix a = {{1.0f, 2.0f}}, b = {{1.5f, 1.0f}};
    CHECK(max_abs_difference(a, b) == doctest::Approx(1.0));
    CHECK(std::isinf(max_abs_difference(a, Matrix{{1.0f}, {2.0f}})));
    CHECK(std::isinf(max_abs_difference(a, Matrix{{std::nanf(""), 2.0f}})));
}

TEST_CASE("text tables align numbers right and words left") {
    CHECK(format_table({"token", "score"}, {{"cat", "0.5"}, {"sat", "12.25"}}) ==
          "token   score\n"
          "─────   ─────\n"
          "cat       0.5\n"
          "sat     12.25\n");
}

TEST_CASE("a table wider than the terminal cuts its widest column of words, not its numbers") {
    const std::string long_cell(300, 'w');
    const std::string text = format_table({"key", "terms", "score"}, {{"t0", long_cell, "3.521"}}, 40);
    CHECK(text ==
          "key   terms                        score\n"
          "───   ──────────────────────────   ─────\n"
          "t0    " + std::string(25, 'w') + "…   3.521\n");
}

TEST_CASE("text wider than the terminal wraps at spaces; labels are cut by display width") {
    CHECK(wrap_to_width("short line\n", 20) == "short line\n");
    CHECK(wrap_to_width("✓ one two three four five six", 12, 2) == "✓ one two\n  three four\n  five six");
    const std::string word(50, 'a');
    for (const std::string& line : {wrap_to_width(word + " b", 20)})
        CHECK(line == std::string(20, 'a') + "\n" + std::string(20, 'a') + "\n" + std::string(10, 'a') + " b");
    CHECK(cut_to_width("a_very_long_token_name", 10) == "a_very_lo…");
    CHECK(display_width(cut_to_width("猫猫猫猫猫猫", 5)) <= 5);
}

TEST_CASE("side_by_side puts blocks next to each other, and wraps when they do not fit") {
    const std::string a = "ab\nabcd\n", b = "xyz\n";
    CHECK(side_by_side({a, b}, 80) == "\nab      xyz\nabcd\n");
    CHECK(side_by_side({a, b}, 6) == "\nab\nabcd\n\nxyz\n");  // 4 + 4 + 3 > 6: one block per row
    // A colour escape takes no columns: the second block still starts at column 8.
    CHECK(side_by_side({"\x1b[38;2;1;2;3mab\x1b[0m\nabcd\n", b}, 80) == "\n\x1b[38;2;1;2;3mab\x1b[0m      xyz\nabcd\n");
    CHECK(visible_width("\x1b[1m…é\x1b[0m") == 2);
}

TEST_CASE("grouped digits, the way the papers print parameter counts") {
    CHECK(grouped(2362368) == "2 362 368");
    CHECK(grouped(512) == "512");
    CHECK(grouped(1000) == "1 000");
    CHECK(grouped(0) == "0");
    CHECK(grouped(1048576, 12) == "   1 048 576");
}

TEST_CASE("small matrix helpers: index_of, argmax_of_row, all_finite") {
    const Labels tokens = {"the", "cat", "sat"};
    CHECK(index_of(tokens, "cat") == 1);
    CHECK(index_of(tokens, "dog") == 3);  // not there: the size
    const Matrix m = {{0.1f, 0.7f, 0.7f}, {-2.0f, -3.0f, -1.0f}};
    CHECK(argmax_of_row(m, 0) == 1);  // a tie: the first
    CHECK(argmax_of_row(m, 1) == 2);
    CHECK(all_finite(m));
    CHECK_FALSE(all_finite(Matrix{{1.0f, std::numeric_limits<float>::infinity()}}));
    CHECK_FALSE(all_finite(Matrix{{std::nanf("")}}));
}
