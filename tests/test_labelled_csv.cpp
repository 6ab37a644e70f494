// The labelled-CSV reader: good files load; every malformed case names the
// right line and column and says what was expected.
#include <doctest/doctest.h>

#include <string>

#include "common/inputs/labelled_csv.hpp"
#include "common/lesson/self_check.hpp"
#include "common/numbers/input_error.hpp"

namespace {
// The message parse_labelled_csv throws for `text`, or "" when it loads.
std::string error_of(const std::string& text) {
    try {
        parse_labelled_csv(text, "f.csv");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST_CASE("a well-formed file loads with its labels and values") {
    const auto t = parse_labelled_csv("token,a,b\ncat,0.5,-1\nmat, 2e-1 ,+3\n", "f.csv");
    CHECK(t.rows == Labels{"cat", "mat"});
    CHECK(t.columns == Labels{"a", "b"});
    REQUIRE(t.values.shape(0) == 2);
    REQUIRE(t.values.shape(1) == 2);
    CHECK(t.values(0, 0) == doctest::Approx(0.5));
    CHECK(t.values(0, 1) == doctest::Approx(-1.0));
    CHECK(t.values(1, 0) == doctest::Approx(0.2));
    CHECK(t.values(1, 1) == doctest::Approx(3.0));
    CHECK(t.source == "f.csv");
}

TEST_CASE("Windows line ends and trailing blank lines are accepted") {
    const auto t = parse_labelled_csv("token,a\r\nx,1\r\n\n\n", "f.csv");
    CHECK(t.rows == Labels{"x"});
    CHECK(t.values(0, 0) == doctest::Approx(1.0));
}

TEST_CASE("each malformed case names its line, column and what was expected") {
    SUBCASE("empty file") { CHECK(error_of("") == "f.csv:1: the file is empty; expected a header 'token,<dimension names…>'"); }
    SUBCASE("missing header") {
        CHECK(error_of("cat,0.1,0.2\n") == "f.csv:1: expected a header starting with 'token,', found 'cat,0.1,0.2'");
    }
    SUBCASE("header without dimensions") {
        CHECK(error_of("token\ncat\n") == "f.csv:1: the header names no dimensions; expected 'token,<dimension names…>'");
    }
    SUBCASE("header only") { CHECK(error_of("token,a,b\n") == "f.csv:2: expected at least one token row after the header, found none"); }
    SUBCASE("ragged row") {
        CHECK(error_of("token,a,b\ncat,1,2\nmat,1\n") ==
              "f.csv:3: expected 3 cells (the token and 2 numbers, as in the header), found 2");
    }
    SUBCASE("a cell that is not a number") {
        CHECK(error_of("token,a,b\ncat,1,2\nmat,1,two\n") == "f.csv:3: column 3 ('b'): expected a number, found 'two'");
    }
    SUBCASE("a number with trailing text") {
        CHECK(error_of("token,a\ncat,1.5x\n") == "f.csv:2: column 2 ('a'): expected a number, found '1.5x'");
    }
    SUBCASE("an empty cell") {
        CHECK(error_of("token,a,b\ncat,,2\n") == "f.csv:2: column 2 ('a'): expected a number, found an empty cell");
    }
    SUBCASE("NaN") { CHECK(error_of("token,a\ncat,nan\n") == "f.csv:2: column 2 ('a'): expected a finite number, found 'nan'"); }
    SUBCASE("infinity") {
        CHECK(error_of("token,a\ncat,-inf\n") == "f.csv:2: column 2 ('a'): expected a finite number, found '-inf'");
    }
    SUBCASE("beyond float range") {
        CHECK(error_of("token,a\ncat,1e39\n") == "f.csv:2: column 2 ('a'): '1e39' is out of range for a float");
    }
    SUBCASE("a blank line between rows") {
        CHECK(error_of("token,a\ncat,1\n\nmat,2\n") == "f.csv:3: empty line; expected a token row");
    }
    SUBCASE("an empty token name") { CHECK(error_of("token,a\n,1\n") == "f.csv:2: column 1: the token name is empty"); }
    SUBCASE("an empty dimension name") { CHECK(error_of("token,a,\ncat,1,2\n") == "f.csv:1: column 3: the header has an empty dimension name"); }
}

TEST_CASE("reading a file that is missing or a directory is an InputError") {
    CHECK_THROWS_WITH_AS(read_labelled_csv("/no/such/file.csv"),
                         "/no/such/file.csv: cannot open the file (No such file or directory)", InputError);
    CHECK_THROWS_WITH_AS(read_labelled_csv("/tmp"), "/tmp: is a directory; expected a labelled CSV file", InputError);
}

TEST_CASE("require_width names the file, the widths and who needs them") {
    const auto t = parse_labelled_csv("token,a,b\ncat,1,2\n", "f.csv");
    CHECK_NOTHROW(require_width(t, 2, "W_Q"));
    CHECK_THROWS_WITH_AS(require_width(t, 3, "the rows of W_Q"),
                         "f.csv:1: the header names 2 dimensions; expected 3 to match the rows of W_Q", InputError);
}

// The files that spreadsheets and editors really write.
TEST_CASE("a UTF-8 byte-order mark and every kind of line end read like the clean file") {
    const auto clean = parse_labelled_csv("token,a,b\ncat,0.5,1\nmat,2,3\n", "f.csv");
    for (const std::string text : {"\xef\xbb\xbftoken,a,b\r\ncat,0.5,1\r\nmat,2,3\r\n",  // Excel "CSV UTF-8"
                                   "token,a,b\rcat,0.5,1\rmat,2,3\r",                     // "CSV (Macintosh)"
                                   "token,a,b\ncat,0.5,1\nmat,2,3"}) {                    // no final newline
        const auto t = parse_labelled_csv(text, "f.csv");
        CHECK(t.rows == clean.rows);
        CHECK(t.columns == clean.columns);
        CHECK(max_abs_difference(t.values, clean.values) == 0.0);
    }
}

TEST_CASE("UTF-16, UTF-32 and 8-bit encodings are refused with how to re-save the file") {
    const std::string utf16("\xff\xfet\0o\0k\0e\0n\0", 12);
    CHECK(error_of(utf16).find("f.csv:1: the file is UTF-16") == 0);
    CHECK(error_of(utf16).find("CSV UTF-8") != std::string::npos);
    CHECK(error_of(std::string("\xff\xfe\0\0t\0\0\0", 8)).find("UTF-32") != std::string::npos);
    // "café" in Windows-1252 on line 3.
    CHECK(error_of("token,a\ncat,1\ncaf\xe9,2\n").find("f.csv:3: the byte 0xe9 is not UTF-8") == 0);
}

TEST_CASE("quoted cells lose their quotes, and a quoted comma stays in the name") {
    const auto t = parse_labelled_csv("\"token\",\"a\",b\n\"cat\",\"0.5\",1\n\"mat, the\",2,3\n", "f.csv");
    CHECK(t.rows == Labels{"cat", "mat, the"});
    CHECK(t.columns == Labels{"a", "b"});
    CHECK(t.values(0, 0) == 0.5f);
}

TEST_CASE("what is invisible shows in the message, and a message stays short") {
    CHECK(error_of("token,a\ncat,0.8\xe2\x80\x8b\n").find("'0.8\\u200b'") != std::string::npos);   // zero-width space
    CHECK(error_of("token,a\ncat,0.8\xc2\xa0\n").find("'0.8\\u00a0'") != std::string::npos);       // no-break space
    CHECK(error_of("token,a\n\x1b[31mcat,1\n").find("f.csv:2: the token name '\\x1b[31mcat' has a control character") == 0);
    std::string header = "tokens";
    for (int i = 0; i < 2000; ++i) header += ",dimension" + std::to_string(i);
    CHECK(error_of(header + "\n").size() < 200);
}

TEST_CASE("a number has one sign") {
    CHECK(error_of("token,a\ncat,+-1\n").find("expected a number, found '+-1'") != std::string::npos);
    CHECK(error_of("token,a\ncat,+1\n").empty());
}

TEST_CASE("a quote that is not closed is named") {
    CHECK(error_of("token,a\n\"cat,1\n").find("f.csv:2: a double quote is not closed") == 0);
}
