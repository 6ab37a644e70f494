#include "common/lesson/token_text.hpp"

#include "common/lesson/corpus.hpp"

std::string visible_symbol(const std::u32string& symbol) {
    std::string out;
    for (const char32_t c : symbol) out += c == U' ' ? "␣" : c == U'\n' ? "⏎" : utf8_of(std::u32string(1, c));
    return out;
}

std::string bars(const Tokenizer& t, const TokenIds& ids) {
    std::string out = "|";
    for (const int id : ids) out += visible_symbol(t.symbol(id)) + "|";
    return out;
}
