// Chapter 21's own byte-pair encoding learned on bytes (--bytes), as GPT-2 learns its own: the
// text cut into words by common/tokens' rule first (on code points, where a letter is a letter),
// then each word's UTF-8 bytes written as GPT-2's printable symbols (byte_symbol: a space is Ġ,
// "é" is the two symbols "Ã©"). The first vocabulary is the 256 byte symbols, id = the byte, so
// no text is ever unknown; the merges are learned on these words as on characters.
#pragma once

#include <string>
#include <vector>

#include "common/tokens/tokenizer.hpp"

// The 256 byte symbols, symbol b standing for byte b: no merges.
Tokenizer byte_characters();
// The words of `text` (split_words), each as its bytes' symbols.
std::vector<std::u32string> byte_words(const std::u32string& text);
// Byte symbols read back as text: their bytes decoded as UTF-8. InputError when they are not
// UTF-8 (the bytes of part of a character).
std::u32string text_of_byte_symbols(const std::u32string& symbols);
