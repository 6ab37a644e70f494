#include "common/text/token_text.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/numbers/input_error.hpp"
#include "common/text/corpus.hpp"

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

std::u32string checked_sentence(const std::string& flag, const std::string& utf8, const Tokenizer& characters,
                                const std::string& corpus_name) {
    if (utf8.size() > 4 * longest_sentence)  // before decoding: a 10 MB sentence is refused at once
        throw InputError(fmt::format("{}: {} bytes, at most {} characters", flag, utf8.size(), longest_sentence));
    const std::u32string s = code_points_of(utf8, flag);
    if (s.empty()) throw InputError(flag + ": empty (expected a sentence)");
    if (s.size() > longest_sentence)
        throw InputError(fmt::format("{}: {} characters, at most {}", flag, s.size(), longest_sentence));
    for (const char32_t c : s)
        if (!all_known(std::u32string(1, c), characters))
            throw InputError(fmt::format("{}: the character '{}' (U+{:04X}) is not among {}'s {} characters", flag,
                                         utf8_of(std::u32string(1, c)), unsigned(c), corpus_name,
                                         characters.characters()));
    return s;
}

bool all_known(const std::u32string& text, const Tokenizer& characters) {
    const auto first = characters.symbols.begin(), last = first + std::ptrdiff_t(characters.characters());
    return std::all_of(text.begin(), text.end(),
                       [&](char32_t c) { return std::find(first, last, std::u32string(1, c)) != last; });
}
