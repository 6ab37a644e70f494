// From text to tokens: characters, then byte-pair encoding (Sennrich et al. 2016) as GPT-2 runs it,
// the text split into words first so that no token crosses a word; but on characters where GPT-2
// has bytes, and with a simpler word rule than GPT-2's pattern (no 's 't 're … endings).
//
//   characters:  the vocabulary starts as the distinct code points of the text, sorted by code
//                point: ids 0 … c−1 (81 for Moby-Dick).
//   learn:       count every adjacent pair of symbols inside the words (each distinct word once,
//                weighted by how often it occurs); merge the most frequent pair into a new
//                symbol with the next id; repeat until the vocabulary has N symbols. A tie goes
//                to the smallest (left id, right id).
//   encode:      split the text into words; in each word, merge the pair whose merge was learned
//                first (GPT-2's rank rule), again and again, until no learned pair is left.
//   decode:      join the symbols' text: decode(encode(s)) == s for every s of known characters.
//
// Words (the split before learning and before encoding): a word is one optional space followed
// by a run of letters, or a run of digits 0–9, or a run of other symbols (neither letters,
// digits nor whitespace). Every other whitespace character (space, tab, newline, \v, \f, \r:
// a newline, or a space before whitespace or at the end) is a word on its own. Letters are A–Z, a–z and every code point
// from U+00C0 up except the punctuation and symbol blocks U+2000–U+2BFF and U+3000–U+303F (the
// em dash U+2014 is a symbol). So " whale's" is " whale", "'", "s": an apostrophe is a symbol.
//
// Text here is code points (std::u32string); reading UTF-8 is the lesson's (common/text/).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

using TokenIds = std::vector<int>;

// One learned merge: the pair (left, right) became the symbol left + right, seen `count` times
// in the training words when it was chosen.
struct Merge {
    int left = 0, right = 0;
    std::int64_t count = 0;
};

struct Tokenizer {
    std::vector<std::u32string> symbols;  // id → its text: the characters first, then one per merge
    std::vector<Merge> merges;            // merge r made the symbol characters() + r
    std::size_t characters() const { return symbols.size() - merges.size(); }
    std::size_t size() const { return symbols.size(); }
    const std::u32string& symbol(int id) const { return symbols.at(static_cast<std::size_t>(id)); }
};

// The text cut into words, by the rule above, in order: joined, they are the text again.
std::vector<std::u32string> split_words(const std::u32string& text);

// The vocabulary of characters: the distinct code points of `text`, sorted; no merges.
Tokenizer char_tokenizer(const std::u32string& text);

// Byte-pair encoding learned on `training_text`, starting from `characters` (a char_tokenizer,
// often of a larger text), until the vocabulary has `vocab_size` symbols or no pair is left.
// Pair counts are kept and updated only in the words a merge touches. InputError when the
// training text holds a character that `characters` lacks, or vocab_size < its characters.
Tokenizer learn_bpe(const Tokenizer& characters, const std::u32string& training_text, std::size_t vocab_size);
// The same, learned on words already cut (split_words, or chapter 21's words of bytes).
Tokenizer learn_bpe_on_words(const Tokenizer& characters, const std::vector<std::u32string>& words,
                             std::size_t vocab_size);

// The same tokenizer with only its first `vocab_size` symbols (its first merges): what learning
// would have given for that size.
Tokenizer first_symbols(const Tokenizer& tokenizer, std::size_t vocab_size);

// The ids of a text, word by word. InputError naming a character the vocabulary lacks.
TokenIds encode(const Tokenizer& tokenizer, const std::u32string& text);
// The ids of words already cut, in order.
TokenIds encode_words(const Tokenizer& tokenizer, const std::vector<std::u32string>& words);
// The ids of one word, given as its characters' ids, by the rank rule.
TokenIds encode_word(const Tokenizer& tokenizer, TokenIds characters);
// The text of the ids joined. InputError for an id outside the vocabulary.
std::u32string decode(const Tokenizer& tokenizer, const TokenIds& ids);

// The tokenizer as a small text file and back (a model keeps it beside its weights):
//   bpe 1
//   characters 81
//   <one code point per line, in hexadecimal>
//   merges 431
//   <left right count, one merge per line>
// read_tokenizer throws InputError naming the line that is not of this form.
std::string tokenizer_text(const Tokenizer& tokenizer);
Tokenizer read_tokenizer(const std::string& text);
