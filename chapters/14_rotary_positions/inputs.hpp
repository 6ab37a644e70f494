// Chapter 14 · the lesson's inputs: its flags, and the two projections (data/projections/,
// or the learner's own files), checked against the sequence before anything is printed.
#pragma once

#include <cstddef>
#include <string>

#include "common/inputs/labelled_csv.hpp"
#include "common/inputs/sequence.hpp"

class Lesson;  // common/lesson/lesson.hpp: the chapter's flags are declared in it

struct Projections {
    LabelledMatrix W_Q, W_K;  // (d_model × d_k) each, d_k even
};

// Each from its path, or data/projections/<name>.csv when the path is empty.
Projections read_projections(const std::string& w_q_path, const std::string& w_k_path);

// Throws InputError when W_Q or W_K does not read the sequence's dimensions (`input`: the
// sequence's file, empty for data/embeddings.csv), or they do not share one even d_k.
void require_fit(const Projections& W, const Sequence& seq, const std::string& input);

struct Options {  // the chapter's flags
    std::size_t offset = 0, max_distance = 256;
    double base = 10000.0;
    std::string w_q_path, w_k_path;
};

// --offset, --base (> 1, at most 1e9), --max-distance, --w-q and --w-k, each with its range.
void add_options(Lesson& lesson, Options& o);
