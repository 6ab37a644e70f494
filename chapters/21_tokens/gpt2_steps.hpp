// Chapter 21 · GPT-2's own tokenizer (--tokenizer gpt2): the text's bytes, GPT-2's pattern cutting
// it into pieces, the merges that build each token, the ids, and the book's tokenizer beside it.
// The tokenizer itself is common/byte_tokens/byte_level_bpe.hpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/byte_tokens/byte_level_bpe.hpp"
#include "common/lesson/lesson.hpp"
#include "common/tokens/tokenizer.hpp"

// The text read by GPT-2's tokenizer: what the steps show and --dump writes.
struct ByteLevelRead {
    std::string text;                                   // UTF-8
    std::vector<std::string> pieces;                    // GPT-2's pattern's pieces, in order
    std::vector<std::vector<std::vector<std::string>>> merges;  // [piece] its symbols after each merge
    TokenIds ids;
    Matrix byte_values;  // (1 × bytes) the text's UTF-8 bytes
    Matrix token_ids;    // (1 × tokens) GPT-2's ids

    MatrixList matrices() const;
};
// The text is UTF-8 (read_inputs checks it, and GPT-2's files, before anything prints).
ByteLevelRead read_with_gpt2(Lesson& lesson, const std::string& text);

// The steps; `book` is chapter 21's tokenizer learned on the book, when it reads every
// character of the text (else `unread` names one it lacks).
void show_gpt2_bytes(Lesson& lesson, const ByteLevelRead& g);
void show_gpt2_pieces(Lesson& lesson, const ByteLevelRead& g);
void show_gpt2_merges(Lesson& lesson, const ByteLevelRead& g);
void show_gpt2_ids(Lesson& lesson, const ByteLevelRead& g);
void show_gpt2_beside_the_book(Lesson& lesson, const ByteLevelRead& g, const std::optional<Tokenizer>& book,
                               const std::string& unread);
void check_gpt2(SelfChecks& check, const ByteLevelRead& g);
