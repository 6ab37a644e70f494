// The text the language chapters learn from, read and checked in one place: Moby-Dick from
// build/corpus/moby_dick.txt (tools/corpus.py sets it up; its path is compiled in), or the
// learner's own UTF-8 file given with --corpus FILE. The mathematics gets code points.
//
//   const Corpus corpus = load_corpus(corpus_path, 1000);   // "" → Moby-Dick
//   corpus.training() … the first 90 % of the characters; corpus.held_out() … the rest
#pragma once

#include <cstddef>
#include <string>

struct Corpus {
    std::u32string text;  // every character, as code points
    std::string name;     // "Moby-Dick", or the learner's file as given
    // The first 90 % of the characters learn; the last 10 % are held out to measure.
    std::size_t training_size() const { return text.size() * 9 / 10; }
    std::u32string training() const { return text.substr(0, training_size()); }
    std::u32string held_out() const { return text.substr(training_size()); }
};

// Reads the corpus: Moby-Dick when `path` is empty, else the file. InputError in one line when
// the text is missing (with what to do), empty, binary (NUL bytes), not UTF-8, shorter than
// `fewest_characters`, or too large for this machine's memory (an estimate, before reading).
Corpus load_corpus(const std::string& path, std::size_t fewest_characters);
// Where the Moby-Dick text is (build/corpus/moby_dick.txt of the source tree).
std::string default_corpus_file();

// UTF-8 to code points; InputError naming `what` and the byte where it is not UTF-8.
std::u32string code_points_of(const std::string& utf8, const std::string& what);
// Code points to UTF-8.
std::string utf8_of(const std::u32string& text);
