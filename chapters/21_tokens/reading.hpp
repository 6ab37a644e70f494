// Chapter 21 · how a run cuts text into words and reads ids back as text: on characters (the
// book's characters are the first vocabulary), or with --bytes on bytes (the 256 byte symbols
// are: common/byte_tokens/byte_words.hpp).
#pragma once

#include <string>
#include <vector>

#include "common/byte_tokens/byte_words.hpp"
#include "common/tokens/tokenizer.hpp"

struct Reading {
    bool bytes = false;

    std::vector<std::u32string> words(const std::u32string& text) const {
        return bytes ? byte_words(text) : split_words(text);
    }
    TokenIds encode(const Tokenizer& t, const std::u32string& text) const { return encode_words(t, words(text)); }
    std::u32string decode(const Tokenizer& t, const TokenIds& ids) const {
        return bytes ? text_of_byte_symbols(::decode(t, ids)) : ::decode(t, ids);
    }
};
