// Labelled CSV: a header "token,<dimension names…>", then one row per token:
//
//   token,animal,object,place
//   cat,0.9,0.1,0.0
//   mat,0.0,0.8,0.3
//
// Reading is strict: anything malformed throws InputError naming the file,
// the line and the column, and what was expected. Values must be finite and
// within ±1e6 (larger ones overflow float32 once multiplied and summed).
#pragma once

#include <string>

#include "common/math/matrix.hpp"

struct LabelledMatrix {
    Labels rows;          // the first column: token names (or input dimension names)
    Labels columns;       // the header after "token": dimension names
    Matrix values;        // (rows × columns)
    std::string source;   // the path it was read from, for messages
};

LabelledMatrix read_labelled_csv(const std::string& path);

// Parses text as if it were the file `source` (the reader's core, used by tests).
LabelledMatrix parse_labelled_csv(const std::string& text, const std::string& source);

// Throws InputError unless the table has `width` columns; `why` says who needs it,
// e.g. "the rows of W_Q".
void require_width(const LabelledMatrix& table, std::size_t width, const std::string& why);
