// A sequence of tokens and their embeddings: the X every chapter starts from.
//
// By default a chapter writes its sentence as words ("the cat sat on the mat")
// and looks each word up in data/embeddings.csv. With --input PATH the learner
// gives the sequence directly as a labelled CSV, one row per token.
#pragma once

#include <string>

#include "common/lesson/labelled_csv.hpp"
#include "common/math/matrix.hpp"

struct Sequence {
    Labels tokens;      // n token labels
    Labels dimensions;  // d_model dimension names
    Matrix X;           // (n × d_model), one token per row
};

// The absolute path of a file in data/, e.g. data_path("embeddings.csv").
std::string data_path(const std::string& name);

// Reads data/<name> (a labelled CSV).
LabelledMatrix read_data_file(const std::string& name);

// Looks up each space-separated word of `sentence` in `table` (rows are tokens).
// An unknown word throws InputError naming it and the table's file.
Sequence embed_sentence(const LabelledMatrix& table, const std::string& sentence);

// The sequence from --input when `input_path` is not empty, else `default_sentence`
// looked up in data/embeddings.csv.
Sequence load_sequence(const std::string& input_path, const std::string& default_sentence);

// A projection W (d_model × d_k) reads the sequence's dimensions: its rows must be
// the sequence's columns, same names, same order. Throws InputError naming both
// files otherwise; `sequence_source` is where the sequence came from.
void require_projects(const LabelledMatrix& W, const Sequence& seq, const std::string& sequence_source);
