#include <doctest/doctest.h>

#include <string>

#include "common/display/table_rows.hpp"

TEST_CASE("rows_for makes one row per index, in order") {
    const std::vector<TextRow> body =
        rows_for(3, [](std::size_t i) { return TextRow{std::to_string(i), std::to_string(i * i)}; });
    CHECK(body == std::vector<TextRow>{{"0", "0"}, {"1", "1"}, {"2", "4"}});
}

TEST_CASE("rows_for of no index is an empty body, and row_of is never called") {
    int calls = 0;
    CHECK(rows_for(0, [&](std::size_t) {
        ++calls;
        return TextRow{};
    }).empty());
    CHECK(calls == 0);
}
