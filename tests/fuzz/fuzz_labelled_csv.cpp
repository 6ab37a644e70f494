// libFuzzer target: the labelled-CSV reader on any bytes. A malformed file must
// be an InputError (the chapters turn it into one line and exit code 2); any
// other exception, a crash or a sanitizer report is a bug.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/inputs/labelled_csv.hpp"
#include "common/numbers/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const LabelledMatrix table = parse_labelled_csv(text, "fuzz.csv");
        // What a successful read promises: one label per row, one name per column, finite values.
        if (table.rows.size() != rows(table.values) || table.columns.size() != cols(table.values)) std::abort();
        if (table.rows.empty() || table.columns.empty()) std::abort();
        for (const float v : table.values)
            if (!std::isfinite(v)) std::abort();
    } catch (const InputError&) {
    }
    return 0;
}
