// Chapter 21 · the mathematics: From text to tokens.
//
// Byte-pair encoding, the loops written out (the shared, fast tokenizer is
// common/tokens/tokenizer.hpp, which says the rule that cuts text into words):
//
//   count:  count(a, b) = Σ_words  count(word) · #{i : word[i] = a, word[i+1] = b}
//   merge:  (a, b) with the largest count (a tie: the smallest (a, b)) becomes the new
//           symbol ab; in every word, each a b, left to right, becomes ab
//   repeat: until the vocabulary has N symbols
//
// The text comes in cut into words (split_words; with --bytes, each word's bytes as GPT-2's
// symbols: common/byte_tokens/byte_words.hpp), and no merge crosses a word.
// Shapes: a word is a list of symbol ids; merges (merges × 3): left id, right id, count;
// text_ids (1 × tokens).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"
#include "common/tokens/tokenizer.hpp"

// A distinct word of the text, as symbol ids, and how often it occurs.
struct CountedWord {
    TokenIds ids;
    std::int64_t count = 0;
};
using Words = std::vector<CountedWord>;
using PairCounts = std::map<std::pair<int, int>, std::int64_t>;  // (left, right) → count

// The distinct words of a text's `words` as character ids, with their counts.
Words counted_words(const Tokenizer& characters, const std::vector<std::u32string>& words);

// Every adjacent pair of every word, weighted by the word's count: one pass over all words.
PairCounts count_pairs(const Words& words);

// The word with each `left right`, left to right and not overlapping, replaced by `id`.
TokenIds merge_pair(const TokenIds& word, int left, int right, int id);

// The first `how_many` merges again, the slow way: every pair recounted before each merge.
std::vector<Merge> merges_by_recount(Words words, int first_id, std::size_t how_many);

// A text's words, each merge applied in the order learned: the tokens after every merge that
// changed them.
struct SplitStep {
    int merge = -1;  // the merge's rank (-1: the characters alone)
    TokenIds ids;
};
std::vector<SplitStep> split_merge_by_merge(const Tokenizer& tokenizer, const std::vector<std::u32string>& words);

// Everything the lesson lists, as matrices (ids and counts are whole numbers, exact in float).
struct TokensResult {
    Matrix merges;              // (merges × 3) left id, right id, count
    Matrix recounted_merges;    // (shown × 3) the first merges, recounting every pair each time
    Matrix text_ids;            // (1 × tokens) encode(--text), by the rank rule
    Matrix text_ids_by_merges;  // (1 × tokens) --text after every merge in order

    MatrixList matrices() const {
        return {{"merges", merges, "(left, right, count) of each merge, in order", "merges", "merge_columns",
                 MatrixKind::indices},
                {"recounted_merges", recounted_merges, "the first merges, every pair recounted each time", "",
                 "merge_columns", MatrixKind::indices},
                {"text_ids", text_ids, "encode(text)", "", "tokens", MatrixKind::indices},
                {"text_ids_by_merges", text_ids_by_merges, "text after every merge in order", "", "tokens",
                 MatrixKind::indices}};
    }
};

// The lesson's matrices from the learned tokenizer: the training text's words and your text's.
TokensResult tokens_result(const Tokenizer& tokenizer, const Tokenizer& characters,
                           const std::vector<std::u32string>& training, const std::vector<std::u32string>& text,
                           std::size_t recounted);
