// Labelled CSV: a header "token,<dimension names…>", then one row per token:
//
//   token,animal,object,place
//   cat,0.9,0.1,0.0
//   mat,0.0,0.8,0.3
//
// Reading is strict: anything malformed throws InputError naming the file,
// the line and the column, and what was expected. Values must be finite and
// within ±1e6 (larger ones overflow float32 once multiplied and summed).
// What spreadsheets write is read the same as the clean file: a UTF-8 byte-order
// mark, CR LF or lone CR line ends, cells in double quotes; UTF-16, UTF-32 and
// other 8-bit encodings are refused with how to re-save the file. A file of more
// rows than lesson_square_matrices n × n float matrices can hold in memory is
// refused before it is parsed; a file over 64 MiB before it is read.
#pragma once

#include <cstdint>
#include <string>

#include "common/numbers/matrix.hpp"

// How many n × n float matrices a lesson keeps at once of an n-token input, unless
// it counts its own (chapters 13–15 do: their math.hpp says which matrices).
constexpr std::uint64_t lesson_square_matrices = 8;

struct LabelledMatrix {
    Labels rows;          // the first column: token names (or input dimension names)
    Labels columns;       // the header after "token": dimension names
    Matrix values;        // (rows × columns)
    std::string source;   // the path it was read from, for messages
};

// A file of n rows is refused, before it is parsed, when `square_matrices` n × n float
// matrices would not fit in memory_limit_bytes().
LabelledMatrix read_labelled_csv(const std::string& path, std::uint64_t square_matrices = lesson_square_matrices);

// Parses text as if it were the file `source` (the reader's core, used by tests).
LabelledMatrix parse_labelled_csv(const std::string& text, const std::string& source,
                                  std::uint64_t square_matrices = lesson_square_matrices);

// Throws InputError unless the table has `width` columns; `why` says who needs it,
// e.g. "the rows of W_Q".
void require_width(const LabelledMatrix& table, std::size_t width, const std::string& why);
