// Tokens as a learner reads them on screen: a space as ␣ and a newline as ⏎, so that " cat" and
// "cat" are told apart, and a list of tokens between bars: |The|␣cat|␣sat|.
#pragma once

#include <string>
#include <vector>

#include "common/tokens/tokenizer.hpp"

std::string visible_symbol(const std::u32string& symbol);

// The ids' symbols between bars.
std::string bars(const Tokenizer& tokenizer, const TokenIds& ids);

// Whether every character of `text` is one of `characters` (a text's char_tokenizer).
bool all_known(const std::u32string& text, const Tokenizer& characters);

constexpr std::size_t longest_sentence = 1000;  // characters of a --text: a sentence or a paragraph

// A learner's sentence (UTF-8) as code points, refused in one line naming `flag` when it is not
// UTF-8, empty, longer than longest_sentence, or holds a character that `characters` (the
// text's char_tokenizer) lacks.
std::u32string checked_sentence(const std::string& flag, const std::string& utf8, const Tokenizer& characters,
                                const std::string& corpus_name);
