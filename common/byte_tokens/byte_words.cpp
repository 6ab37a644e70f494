#include "common/byte_tokens/byte_words.hpp"

#include "common/byte_tokens/byte_level_bpe.hpp"
#include "common/numbers/input_error.hpp"
#include "common/text/corpus.hpp"

Tokenizer byte_characters() {
    Tokenizer t;
    for (int b = 0; b < 256; ++b) t.symbols.push_back(std::u32string(1, byte_code_point(static_cast<unsigned char>(b))));
    return t;
}

std::vector<std::u32string> byte_words(const std::u32string& text) {
    std::vector<std::u32string> words;
    for (const std::u32string& word : split_words(text)) {
        std::u32string symbols;
        for (const char byte : utf8_of(word)) symbols.push_back(byte_code_point(static_cast<unsigned char>(byte)));
        words.push_back(std::move(symbols));
    }
    return words;
}

std::u32string text_of_byte_symbols(const std::u32string& symbols) {
    std::string bytes;
    for (const char32_t c : symbols) {
        const int b = symbol_byte(c);
        if (b < 0) throw InputError("a symbol that stands for no byte");
        bytes.push_back(static_cast<char>(b));
    }
    return code_points_of(bytes, "the tokens' bytes");
}
