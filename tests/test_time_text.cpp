#include <doctest/doctest.h>

#include "common/display/time_text.hpp"

TEST_CASE("time_text picks µs, ms or s and a fixed number of decimals") {
    CHECK(time_text(0.0000246) == "24.6 µs");
    CHECK(time_text(0.0) == "0.0 µs");
    CHECK(time_text(0.00123) == "1.23 ms");
    CHECK(time_text(0.113981) == "113.98 ms");
    CHECK(time_text(1.0) == "1.00 s");
    CHECK(time_text(2.5) == "2.50 s");
}
