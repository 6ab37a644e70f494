// A sequence of tokens and their embeddings: the X every chapter starts from.
//
// By default a chapter writes its sentence as words ("the cat sat on the mat")
// and looks each word up in data/embeddings.csv. With --input PATH the learner
// gives the sequence directly as a labelled CSV, one row per token; with --text "a sentence"
// the rows are the token embeddings of the language model chapter 22 trains
// (common/language_model/sentence_option.hpp, which reads a SequenceSource).
#pragma once

#include <string>

#include "common/inputs/labelled_csv.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"
#include "common/numbers/random.hpp"

struct Sequence {
    Labels tokens;      // n token labels
    Labels dimensions;  // d_model dimension names
    Matrix X;           // (n × d_model), one token per row

    // X, its rows labelled "tokens" and its columns "dimensions".
    MatrixList matrices() const { return {{"X", X, "", "tokens", "dimensions"}}; }
};

// Where a chapter's sequence comes from: the file of --input or the sentence of --text
// (add_sentence_options, common/language_model/sentence_option.hpp, declares both).
struct SequenceSource {
    std::string input;          // --input PATH, or empty
    std::string text;           // --text "a sentence", or empty
    bool listing_only = false;  // --list-steps: nothing is trained for it
    bool is_default() const { return input.empty() && text.empty(); }
    // The sentence the sequence step says of where its embeddings come from, for any source.
    std::string embeddings_said() const;
};

class Lesson;  // common/lesson/lesson.hpp
// A chapter whose mathematics takes no sentence through chapter 22's model declares --text only
// to refuse it in one line, saying `why`.
void refuse_text(Lesson& lesson, const std::string& why);

// The absolute path of a file in data/, e.g. data_path("embeddings.csv").
std::string data_path(const std::string& name);

// Reads data/<name> (a labelled CSV).
LabelledMatrix read_data_file(const std::string& name);

// Looks up each space-separated word of `sentence` in `table` (rows are tokens).
// An unknown word throws InputError naming it and the table's file.
Sequence embed_sentence(const LabelledMatrix& table, const std::string& sentence);

// The sequence from --input when `input_path` is not empty, else `default_sentence`
// looked up in data/embeddings.csv. An --input too long for `square_matrices` n × n
// matrices in memory is refused before it is parsed.
Sequence load_sequence(const std::string& input_path, const std::string& default_sentence,
                       std::uint64_t square_matrices = lesson_square_matrices);

// The default sentence with random embeddings of width d_model (one N(0, 1) row per
// distinct word), or --input's sequence when `input_path` is not empty; with --input,
// a --d-model given on the command line (`d_model_given`) must be the file's width.
Sequence random_or_input_sequence(const std::string& input_path, const std::string& default_sentence,
                                  std::size_t d_model, bool d_model_given, Random& random,
                                  std::uint64_t square_matrices = lesson_square_matrices);

// A projection W (d_model × d_k) reads the sequence's dimensions: its rows must be
// the sequence's columns, same names, same order. Throws InputError naming both
// files otherwise; `sequence_source` is where the sequence came from.
void require_projects(const LabelledMatrix& W, const Sequence& seq, const std::string& sequence_source);
