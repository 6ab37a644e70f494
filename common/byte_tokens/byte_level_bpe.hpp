// GPT-2's tokenizer (Radford et al. 2019), exactly: byte-level byte-pair encoding. Nothing is
// ever unknown to it, because it starts from the 256 bytes of UTF-8, not from characters:
//
//   bytes:    the text's UTF-8 bytes, each shown as one printable character (GPT-2's
//             bytes_to_unicode: the printable bytes ! … ~, ¡ … ¬, ® … ÿ stand for themselves,
//             the other 68 are moved to U+0100 … U+0143, so a space is Ġ and a newline Ċ)
//   split:    the text cut into pieces by GPT-2's pattern, tried in this order at each place:
//               's 't 're 've 'm 'll 'd         (these endings, lower case only)
//               an optional space, then letters          (Unicode categories L*)
//               an optional space, then numbers          (N*)
//               an optional space, then other symbols    (neither whitespace, letter nor number)
//               whitespace not followed by a non-space   (all of a run but its last character,
//                                                         when a word follows it)
//               whitespace                               (what is left: one character)
//   merges:   in each piece (as byte characters), merge the adjacent pair of the lowest rank
//             (its line in GPT-2's vocab.bpe), every occurrence left to right, again and again,
//             until no pair of the piece has a rank
//   ids:      each symbol's number in GPT-2's encoder.json (50,257: 256 bytes, 50,000 merges,
//             and <|endoftext|>)
//   decode:   the symbols' characters back to bytes: decode(encode(s)) == s for every s.
//
// Whitespace is JavaScript's \s (the pattern's home, the npm package gpt-3-encoder): tab, line
// feed, \v, \f, carriage return, space, U+00A0, U+FEFF, U+2028, U+2029 and the category Zs.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/tokens/tokenizer.hpp"

struct ByteLevelBpe {
    std::map<std::string, int> ids;                    // symbol (UTF-8 of its byte characters) → id
    std::vector<std::string> symbols;                  // id → symbol
    std::map<std::pair<std::string, std::string>, int> ranks;  // (left, right) → rank: 0 merges first
    std::size_t size() const { return symbols.size(); }
};

// GPT-2's files as text: encoder.json ({"symbol": id, …}) and vocab.bpe ("#version" line, then one
// "left right" merge a line). InputError naming the file and line (or place) that is not of this
// form, an id given twice, or a merge whose symbols the encoder lacks. `name`s label the errors.
ByteLevelBpe read_byte_level_bpe(const std::string& encoder_json, const std::string& encoder_name,
                                 const std::string& vocab_bpe, const std::string& vocab_name);

// The printable character that stands for byte b (UTF-8), and the byte a character stands for
// (-1: none).
std::string byte_symbol(unsigned char b);
int symbol_byte(char32_t c);
char32_t byte_code_point(unsigned char b);  // the same as a code point (byte_symbol's one)

// GPT-2's pattern: the text cut into pieces, in order (joined, they are the text again). The
// text is UTF-8; InputError for bytes that are not.
std::vector<std::string> gpt2_pieces(const std::string& text);

// One piece through the merges: its byte characters, then the symbols after each merge that
// changed them (the last entry is the piece's tokens).
std::vector<std::vector<std::string>> piece_merges(const ByteLevelBpe& bpe, const std::string& piece);

// The ids of a UTF-8 text, and the text of ids (InputError for an id outside the vocabulary).
TokenIds encode_bytes(const ByteLevelBpe& bpe, const std::string& text);
std::string decode_bytes(const ByteLevelBpe& bpe, const TokenIds& ids);
