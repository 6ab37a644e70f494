#include "common/byte_tokens/byte_level_bpe.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include <utf8proc.h>

#include "common/numbers/input_error.hpp"
#include "common/text/corpus.hpp"

namespace {

// GPT-2's bytes_to_unicode: byte b → the code point that shows it.
const std::vector<char32_t>& byte_code_points() {
    static const std::vector<char32_t> table = [] {
        std::vector<char32_t> t(256);
        char32_t moved = 256;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            t[std::size_t(b)] = printable ? char32_t(b) : moved++;
        }
        return t;
    }();
    return table;
}

bool is_space(char32_t c) {
    if ((c >= 9 && c <= 13) || c == 32 || c == 0xA0 || c == 0xFEFF || c == 0x2028 || c == 0x2029) return true;
    return utf8proc_category(static_cast<utf8proc_int32_t>(c)) == UTF8PROC_CATEGORY_ZS;
}
bool is_letter(char32_t c) {
    const utf8proc_category_t k = utf8proc_category(static_cast<utf8proc_int32_t>(c));
    return k == UTF8PROC_CATEGORY_LU || k == UTF8PROC_CATEGORY_LL || k == UTF8PROC_CATEGORY_LT ||
           k == UTF8PROC_CATEGORY_LM || k == UTF8PROC_CATEGORY_LO;
}
bool is_number(char32_t c) {
    const utf8proc_category_t k = utf8proc_category(static_cast<utf8proc_int32_t>(c));
    return k == UTF8PROC_CATEGORY_ND || k == UTF8PROC_CATEGORY_NL || k == UTF8PROC_CATEGORY_NO;
}
bool is_other(char32_t c) { return !is_space(c) && !is_letter(c) && !is_number(c); }

// The length of the piece GPT-2's pattern matches at position i (≥ 1).
std::size_t piece_length(const std::u32string& t, std::size_t i) {
    const std::size_t n = t.size();
    // 's 't 're 've 'm 'll 'd
    if (t[i] == U'\'') {
        for (const std::u32string ending : {U"s", U"t", U"re", U"ve", U"m", U"ll", U"d"})
            if (t.compare(i + 1, ending.size(), ending) == 0 && i + 1 + ending.size() <= n) return 1 + ending.size();
    }
    // an optional space, then a run of one class
    const std::size_t from = t[i] == U' ' && i + 1 < n ? i + 1 : i;
    for (bool (*in_class)(char32_t) : {is_letter, is_number, is_other}) {
        if (!in_class(t[from])) continue;
        std::size_t end = from + 1;
        while (end < n && in_class(t[end])) ++end;
        return end - i;
    }
    // whitespace: the run, but its last character when a non-space follows (left for the next piece)
    std::size_t end = i;
    while (end < n && is_space(t[end])) ++end;
    if (end == n) return end - i;
    return end - i >= 2 ? end - i - 1 : 1;
}

// A JSON string starting at s[at] == '"': its text (escapes read), `at` moved past it.
std::string json_string(const std::string& s, std::size_t& at, const std::string& name) {
    const auto fail = [&](const std::string& what) {
        throw InputError(describe(name, ": byte ", at + 1, ": ", what));
    };
    if (at >= s.size() || s[at] != '"') fail("expected a string in double quotes");
    std::string out;
    for (++at; at < s.size() && s[at] != '"'; ++at) {
        if (s[at] != '\\') {
            out += s[at];
            continue;
        }
        if (++at >= s.size()) break;
        const char e = s[at];
        if (e == 'u') {
            const auto hex4 = [&](std::size_t from) {
                if (from + 4 > s.size()) fail("a \\u escape cut short");
                char32_t v = 0;
                for (std::size_t k = from; k < from + 4; ++k) {
                    const char h = s[k];
                    const int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                                : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                    if (d < 0) fail("a \\u escape that is not four hexadecimal digits");
                    v = v * 16 + char32_t(d);
                }
                return v;
            };
            char32_t c = hex4(at + 1);
            at += 4;
            if (c >= 0xD800 && c <= 0xDBFF && at + 6 < s.size() && s[at + 1] == '\\' && s[at + 2] == 'u') {
                const char32_t low = hex4(at + 3);
                if (low >= 0xDC00 && low <= 0xDFFF) c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00), at += 6;
            }
            out += utf8_of(std::u32string(1, c));
        } else {
            const std::string from = "\"\\/bfnrt", to = "\"\\/\b\f\n\r\t";
            const std::size_t k = from.find(e);
            if (k == std::string::npos) fail("an unknown escape");
            out += to[k];
        }
    }
    if (at >= s.size()) fail("a string without its closing quote");
    ++at;
    return out;
}

void skip_spaces(const std::string& s, std::size_t& at) {
    while (at < s.size() && (s[at] == ' ' || s[at] == '\n' || s[at] == '\r' || s[at] == '\t')) ++at;
}

}  // namespace

char32_t byte_code_point(unsigned char b) { return byte_code_points()[b]; }

std::string byte_symbol(unsigned char b) { return utf8_of(std::u32string(1, byte_code_point(b))); }

int symbol_byte(char32_t c) {
    const std::vector<char32_t>& t = byte_code_points();
    const auto at = std::find(t.begin(), t.end(), c);
    return at == t.end() ? -1 : int(at - t.begin());
}

std::vector<std::string> gpt2_pieces(const std::string& text) {
    const std::u32string t = code_points_of(text, "the text");
    std::vector<std::string> pieces;
    for (std::size_t i = 0; i < t.size();) {
        const std::size_t length = piece_length(t, i);
        pieces.push_back(utf8_of(t.substr(i, length)));
        i += length;
    }
    return pieces;
}

std::vector<std::vector<std::string>> piece_merges(const ByteLevelBpe& bpe, const std::string& piece) {
    std::vector<std::string> word;
    for (const char byte : piece) word.push_back(byte_symbol(static_cast<unsigned char>(byte)));
    std::vector<std::vector<std::string>> steps{word};
    while (word.size() > 1) {
        // the pair of the lowest rank
        int best = std::numeric_limits<int>::max();
        std::pair<std::string, std::string> bigram;
        for (std::size_t i = 0; i + 1 < word.size(); ++i) {
            const auto rank = bpe.ranks.find({word[i], word[i + 1]});
            if (rank != bpe.ranks.end() && rank->second < best) best = rank->second, bigram = rank->first;
        }
        if (best == std::numeric_limits<int>::max()) break;
        // every occurrence, left to right
        std::vector<std::string> merged;
        for (std::size_t i = 0; i < word.size();) {
            if (i + 1 < word.size() && word[i] == bigram.first && word[i + 1] == bigram.second)
                merged.push_back(word[i] + word[i + 1]), i += 2;
            else
                merged.push_back(word[i]), i += 1;
        }
        word = merged;
        steps.push_back(word);
    }
    return steps;
}

TokenIds encode_bytes(const ByteLevelBpe& bpe, const std::string& text) {
    TokenIds ids;
    for (const std::string& piece : gpt2_pieces(text)) {
        const std::vector<std::string> tokens = piece_merges(bpe, piece).back();
        for (const std::string& symbol : tokens) {
            const auto id = bpe.ids.find(symbol);
            if (id == bpe.ids.end()) throw InputError("encoder.json lacks the symbol " + symbol);
            ids.push_back(id->second);
        }
    }
    return ids;
}

std::string decode_bytes(const ByteLevelBpe& bpe, const TokenIds& ids) {
    std::string out;
    for (const int id : ids) {
        if (id < 0 || std::size_t(id) >= bpe.symbols.size())
            throw InputError(describe("id ", id, ": outside GPT-2's vocabulary of ", bpe.symbols.size()));
        for (const char32_t c : code_points_of(bpe.symbols[std::size_t(id)], "encoder.json")) {
            const int b = symbol_byte(c);
            if (b < 0) throw InputError(describe("id ", id, ": a symbol that is not bytes"));
            out.push_back(static_cast<char>(b));
        }
    }
    return out;
}

ByteLevelBpe read_byte_level_bpe(const std::string& encoder_json, const std::string& encoder_name,
                                 const std::string& vocab_bpe, const std::string& vocab_name) {
    ByteLevelBpe bpe;
    // encoder.json: {"symbol": id, …}
    const std::string& s = encoder_json;
    std::size_t at = 0;
    const auto fail = [&](const std::string& what) {
        throw InputError(describe(encoder_name, ": byte ", at + 1, ": ", what));
    };
    skip_spaces(s, at);
    if (at >= s.size() || s[at] != '{') fail("expected { (a JSON object of symbols and their ids)");
    ++at;
    std::vector<std::pair<std::string, long long>> entries;  // in the file's order
    for (;;) {
        skip_spaces(s, at);
        if (at < s.size() && s[at] == '}' && bpe.ids.empty()) break;
        const std::string symbol = json_string(s, at, encoder_name);
        skip_spaces(s, at);
        if (at >= s.size() || s[at] != ':') fail("expected : after a symbol");
        ++at;
        skip_spaces(s, at);
        long long id = 0;
        const std::size_t digits = at;
        while (at < s.size() && s[at] >= '0' && s[at] <= '9' && id < 100000000) id = id * 10 + (s[at++] - '0');
        if (at == digits || id >= 100000000) fail("expected an id, a whole number below 100,000,000");
        if (!bpe.ids.emplace(symbol, int(id)).second) fail("the symbol " + symbol + " a second time");
        entries.emplace_back(symbol, id);
        skip_spaces(s, at);
        if (at < s.size() && s[at] == ',') { ++at; continue; }
        if (at < s.size() && s[at] == '}') break;
        fail("expected , or } after an id");
    }
    // the ids: 0 … n − 1, each once (n symbols)
    bpe.symbols.assign(entries.size(), std::string());
    std::vector<bool> seen(entries.size(), false);
    for (const auto& [symbol, id] : entries) {
        if (std::size_t(id) >= entries.size())
            throw InputError(describe(encoder_name, ": the id ", id, " of ", symbol, ": past the ", entries.size(),
                                      " symbols (ids run 0 … ", entries.size() - 1, ")"));
        if (seen[std::size_t(id)])
            throw InputError(describe(encoder_name, ": the id ", id, " a second time"));
        seen[std::size_t(id)] = true;
        bpe.symbols[std::size_t(id)] = symbol;
    }
    if (bpe.symbols.size() < 256) throw InputError(describe(encoder_name, ": ", bpe.symbols.size(), " symbols; the 256 bytes at least"));
    // vocab.bpe: "#version …", then "left right" a line, the rank the line's order
    std::size_t line_number = 0, start = 0;
    while (start < vocab_bpe.size()) {
        std::size_t end = vocab_bpe.find('\n', start);
        if (end == std::string::npos) end = vocab_bpe.size();
        std::string line = vocab_bpe.substr(start, end - start);
        start = end + 1, ++line_number;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line_number == 1 && line.rfind("#version", 0) == 0) continue;
        if (line.empty()) continue;
        const std::size_t space = line.find(' ');
        const auto bad = [&](const std::string& what) {
            throw InputError(describe(vocab_name, ":", line_number, ": ", what));
        };
        if (space == std::string::npos || space == 0 || space + 1 == line.size() || line.find(' ', space + 1) != std::string::npos)
            bad("expected two symbols separated by one space (a merge)");
        std::string left = line.substr(0, space), right = line.substr(space + 1);
        if (!bpe.ids.count(left) || !bpe.ids.count(right) || !bpe.ids.count(left + right))
            bad("a merge of symbols that encoder.json lacks");
        if (!bpe.ranks.emplace(std::make_pair(left, right), int(bpe.ranks.size())).second) bad("this merge a second time");
    }
    return bpe;
}
