// The heat map of text: one character per entry, the scale's legend, and what a
// matrix too wide or too tall for it leaves out, said in words.
#include <string>

#include <doctest/doctest.h>

#include "common/display/heat_map_text.hpp"
#include "common/display/text_width.hpp"

namespace {

// A causal map of n queries: each row puts `w` on the key just before it, the rest on itself.
Matrix causal_map(std::size_t n, float w) {
    Matrix m = Matrix::from_shape({n, n});
    m.fill(0.0f);
    m(0, 0) = 1.0f;
    for (std::size_t i = 1; i < n; ++i) m(i, i - 1) = w, m(i, i) = 1.0f - w;
    return m;
}

}  // namespace

TEST_CASE("a heat map of both signs is centred on 0: a digit above, a subscript digit below") {
    Matrix m = Matrix::from_shape({1, 6});
    m(0, 0) = 0.0f, m(0, 1) = 0.01f, m(0, 2) = -0.01f, m(0, 3) = 0.5f, m(0, 4) = -0.25f, m(0, 5) = -0.5f;
    CHECK(heat_map_text("effect", "", m, {"x"}, 2, 100) ==
          "effect   (1 × 6)\n"
          "       0\n"
          "       012345\n"
          "0  x    ··#₅=\n"
          "each cell: how many tenths of the way from 0 to ±0.50 its value is\n"
          "(· 0; above 0: 1 … 9, # 10; below 0: ₁ … ₉, = 10); blank: exactly 0\n");
}

TEST_CASE("a heat map of text: one character per entry, rows labelled, columns numbered, a legend") {
    Matrix m = causal_map(12, 0.7f);
    m(11, 0) = 0.02f;  // near 0 but not 0: "·", unlike the blank of an exact 0
    const Labels tokens{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "ab", "c"};
    CHECK(heat_map_text("weights", "a head", m, tokens, 1, 100) ==
          "weights = a head   (12 × 12)\n"
          "         0         1\n"
          "         012345678901\n"
          " 0  a    #\n"
          " 1  b    73\n"
          " 2  c     73\n"
          " 3  d      73\n"
          " 4  e       73\n"
          " 5  f        73\n"
          " 6  g         73\n"
          " 7  h          73\n"
          " 8  i           73\n"
          " 9  j            73\n"
          "10  ab            73\n"
          "11  c    ·         73\n"
          "each cell: how many tenths of the way from 0.0 to 1.0 its value is\n"
          "(· 0, 1 … 9, # 10); blank: exactly 0\n");
}

TEST_CASE("a heat map of text wider than the line keeps its first and last columns and says which it left out") {
    const std::string text = heat_map_text("m", "", causal_map(12, 0.5f), {}, 2, 14);
    CHECK(text ==
          "m   (12 × 12)\n"
          "     0      1\n"
          "     0123…8901\n"
          " 0   #   …\n"
          " 1   55  …\n"
          " 2    55 …\n"
          " 3     55…\n"
          " 4      5…\n"
          " 5       …\n"
          " 6       …\n"
          " 7       …\n"
          " 8       …5\n"
          " 9       …55\n"
          "10       … 55\n"
          "11       …  55\n"
          "(columns 4 to 7 left out: the line holds 14 characters)\n"
          "each cell: how many tenths of the way from 0.00 to 1.00 its value is\n"
          "(· 0, 1 … 9, # 10); blank: exactly 0\n");
}

TEST_CASE("a heat map of text of 64 columns fits 100 characters whole; more than 64 rows keep 32 at each end") {
    const std::string fits = heat_map_text("m", "", causal_map(64, 0.5f), {}, 1, 100);
    CHECK(fits.find("left out") == std::string::npos);
    CHECK(fits.find(" 0123456789012345678901234567890123456789012345678901234567890123\n") != std::string::npos);
    // 100 × 100: rows 0–31 and 68–99; columns 0–46 and 53–99 (94 of them and "…" after the 5-character margin)
    const std::string big = heat_map_text("m", "", causal_map(100, 0.5f), {}, 1, 100);
    CHECK(big.find("\n31   ") != std::string::npos);
    CHECK(big.find("\n32   ") == std::string::npos);
    CHECK(big.find("\n68   ") != std::string::npos);
    CHECK(big.find("(rows 32 to 67 left out)\n") != std::string::npos);
    CHECK(big.find("(columns 47 to 52 left out: the line holds 100 characters)\n") != std::string::npos);
    for (std::size_t start = 0, end; (end = big.find('\n', start)) != std::string::npos; start = end + 1)
        CHECK(display_width(big.substr(start, end - start)) <= 100);
}

TEST_CASE("a heat map of text cuts a long row label, so that every line fits the width") {
    const std::string token(300, 'x');  // a learner's token of 300 characters, through --input
    const std::string text = heat_map_text("m", "", causal_map(4, 0.5f), {token, "b", "c", "d"}, 2, 100);
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = text.find('\n', start);
        const std::string line = text.substr(start, end - start);
        CAPTURE(line);
        CHECK(display_width(line) <= 100);
        start = end + 1;
    }
    CHECK(text.find(std::string(15, 'x') + "…") != std::string::npos);  // cut to 16 columns, the cut shown
}
