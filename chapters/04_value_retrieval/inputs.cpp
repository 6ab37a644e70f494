#include "chapters/04_value_retrieval/inputs.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/inputs/sequence.hpp"
#include "common/numbers/input_error.hpp"

Phonebook load_phonebook() {
    Phonebook book{read_data_file("phonebook_keys.csv"), read_data_file("phonebook_values.csv"),
                   read_data_file("phonebook_queries.csv")};
    if (book.values.rows != book.keys.rows)
        throw InputError(fmt::format("{}: lists {}, but {} lists {} (the same people, in the same order)",
                                     book.values.source, fmt::join(book.values.rows, ","), book.keys.source,
                                     fmt::join(book.keys.rows, ",")));
    if (book.queries.columns != book.keys.columns)
        throw InputError(fmt::format("{}: has the columns {}, but the keys ({}) have {} (a query is compared "
                                     "with a key column by column)",
                                     book.queries.source, fmt::join(book.queries.columns, ","), book.keys.source,
                                     fmt::join(book.keys.columns, ",")));
    return book;
}
