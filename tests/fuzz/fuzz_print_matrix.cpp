// libFuzzer target: printing what a learner's file holds. The labels of a
// labelled CSV (any bytes: UTF-8 or not, long or empty-looking) become the row
// and column labels of format_matrix, in both the plain and the colour form,
// with elision, at several decimals.
#include <cstdint>
#include <string>

#include "common/display/print.hpp"
#include "common/inputs/labelled_csv.hpp"
#include "common/numbers/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const int decimals = data[0] % 7;  // 0 … 6
    const bool color = (data[0] & 0x80) != 0;
    const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    try {
        const LabelledMatrix table = parse_labelled_csv(text, "fuzz.csv");
        PrintStyle style;
        style.decimals = decimals;
        style.color = color;
        style.max_rows = 4;  // elide early, so small inputs reach that code too
        style.max_cols = 3;
        style.edge_items = 1;
        (void)format_matrix("X", "fuzz", table.values, table.rows, table.columns, style);
        (void)format_matrix("X", "fuzz", table.values, {}, {}, PrintStyle{});
        for (const float v : table.values) (void)format_number(v, decimals);
    } catch (const InputError&) {
    }
    return 0;
}
