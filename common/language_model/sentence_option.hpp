// A sentence through chapter 22's trained GPT as a chapter's sequence: --text "a sentence", beside
// the frame's --input PATH, one or the other. X's rows are then the model's token embeddings of
// the sentence (d_model wide, one row per token, labelled by its tokens).
//
//   const SequenceSource& input = add_sentence_options(lesson, "\"the cat sat\"");
//   lesson.run(argc, argv, [&] {
//       const Sequence seq = load_sequence(input, "the cat sat");   // the words, the file or the sentence
//
// The page of --html then carries the trained model, so that a sentence typed in it goes
// through the same model in the browser (common/language_model/page_model.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/inputs/sequence.hpp"

class Lesson;  // common/lesson/lesson.hpp

// Declares --input and --text on the lesson and returns what they fill, checked once they are read
// (--text with --input is refused in one line). One per program: the lesson's.
const SequenceSource& add_sentence_options(Lesson& lesson, const std::string& default_sequence);

// load_sequence (common/inputs/sequence.hpp), or with --text the trained model's token
// embeddings of the sentence.
Sequence load_sequence(const SequenceSource& source, const std::string& default_sentence,
                       std::uint64_t square_matrices = lesson_square_matrices);

// With --text, d_model is the trained model's width: a --d-model given on the command line
// (`d_model_given`) that is not is refused in one line, before the model is read.
void check_model_width(std::size_t d_model, bool d_model_given);

// random_or_input_sequence, or with --text the trained model's token embeddings (whose width is
// d_model: check_model_width).
Sequence random_or_input_sequence(const SequenceSource& source, const std::string& default_sentence,
                                  std::size_t d_model, bool d_model_given, Random& random,
                                  std::uint64_t square_matrices = lesson_square_matrices);
