#include "common/tokens/tokenizer.hpp"

#include <algorithm>
#include <iomanip>
#include <limits>
#include <map>
#include <queue>
#include <sstream>
#include <unordered_map>

#include "common/numbers/input_error.hpp"

namespace {

enum class Kind { letter, digit, symbol, space };

Kind kind_of(char32_t c) {
    if (c == U' ' || c == U'\t' || c == U'\n' || c == U'\v' || c == U'\f' || c == U'\r') return Kind::space;
    if (c >= U'0' && c <= U'9') return Kind::digit;
    if ((c >= U'A' && c <= U'Z') || (c >= U'a' && c <= U'z')) return Kind::letter;
    const bool punctuation = (c >= 0x2000 && c <= 0x2BFF) || (c >= 0x3000 && c <= 0x303F);
    return c >= 0xC0 && !punctuation ? Kind::letter : Kind::symbol;
}

// "U+2014" and, for a printable ASCII character, the character itself: "'#' (U+0023)".
std::string name_of(char32_t c) {
    std::ostringstream hex;
    hex << "U+" << std::uppercase << std::hex << std::setw(4) << std::setfill('0') << static_cast<unsigned>(c);
    const std::string code = hex.str();
    if (c >= 0x21 && c < 0x7F) return describe("'", static_cast<char>(c), "' (", code, ")");
    return code;
}

// A pair of ids as one key; sorting keys sorts by (left, right).
using PairKey = std::uint64_t;
PairKey key_of(int left, int right) { return (PairKey(std::uint32_t(left)) << 32) | std::uint32_t(right); }

// The word with every (left, right) replaced by `id`, left to right, never overlapping:
// merging (a, a) in "a a a" gives "aa a".
TokenIds merged(const TokenIds& word, int left, int right, int id) {
    TokenIds out;
    out.reserve(word.size());
    for (std::size_t i = 0; i < word.size(); ++i) {
        if (i + 1 < word.size() && word[i] == left && word[i + 1] == right) {
            out.push_back(id);
            ++i;
        } else {
            out.push_back(word[i]);
        }
    }
    return out;
}

using Ranks = std::unordered_map<PairKey, int>;  // pair → the merge that made it (its rank)

Ranks ranks_of(const Tokenizer& tokenizer) {
    Ranks ranks;
    for (std::size_t r = 0; r < tokenizer.merges.size(); ++r)
        ranks[key_of(tokenizer.merges[r].left, tokenizer.merges[r].right)] = static_cast<int>(r);
    return ranks;
}

// GPT-2's rule: merge the pair learned first, everywhere in the word, until none is learned.
TokenIds encode_ranked(const Tokenizer& tokenizer, const Ranks& ranks, TokenIds word) {
    while (word.size() > 1) {
        int best = std::numeric_limits<int>::max();
        for (std::size_t i = 0; i + 1 < word.size(); ++i) {
            const auto found = ranks.find(key_of(word[i], word[i + 1]));
            if (found != ranks.end()) best = std::min(best, found->second);
        }
        if (best == std::numeric_limits<int>::max()) break;
        const Merge& m = tokenizer.merges[static_cast<std::size_t>(best)];
        word = merged(word, m.left, m.right, static_cast<int>(tokenizer.characters()) + best);
    }
    return word;
}

std::unordered_map<char32_t, int> character_ids(const Tokenizer& tokenizer) {
    std::unordered_map<char32_t, int> ids;
    for (std::size_t i = 0; i < tokenizer.characters(); ++i) ids[tokenizer.symbols[i][0]] = static_cast<int>(i);
    return ids;
}

TokenIds characters_of(const std::unordered_map<char32_t, int>& ids, const std::u32string& word) {
    TokenIds out;
    for (char32_t c : word) {
        const auto found = ids.find(c);
        if (found == ids.end())
            throw InputError(describe("the character ", name_of(c), " is not in the vocabulary of ", ids.size(),
                                      " characters"));
        out.push_back(found->second);
    }
    return out;
}

}  // namespace

std::vector<std::u32string> split_words(const std::u32string& text) {
    std::vector<std::u32string> words;
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t start = i;
        // pass 1: a space joins the word after it, when one follows
        if (text[i] == U' ' && i + 1 < text.size() && kind_of(text[i + 1]) != Kind::space) ++i;
        // pass 2: a run of one kind; whitespace stands alone
        const Kind kind = kind_of(text[i]);
        ++i;
        if (kind != Kind::space)
            while (i < text.size() && kind_of(text[i]) == kind) ++i;
        words.push_back(text.substr(start, i - start));
    }
    return words;
}

Tokenizer char_tokenizer(const std::u32string& text) {
    // One pass marks the code points that occur (sorting a copy of a whole book took n log n).
    constexpr char32_t code_points = 0x110000;
    std::vector<bool> seen(code_points);
    std::u32string beyond;  // values past U+10FFFF, which decoded UTF-8 never holds
    for (char32_t c : text) {
        if (c < code_points) seen[c] = true;
        else beyond.push_back(c);
    }
    std::u32string distinct;
    for (char32_t c = 0; c < code_points; ++c)
        if (seen[c]) distinct.push_back(c);
    std::sort(beyond.begin(), beyond.end());
    beyond.erase(std::unique(beyond.begin(), beyond.end()), beyond.end());
    distinct += beyond;
    Tokenizer t;
    for (char32_t c : distinct) t.symbols.push_back(std::u32string(1, c));
    return t;
}

Tokenizer learn_bpe(const Tokenizer& characters, const std::u32string& training_text, std::size_t vocab_size) {
    return learn_bpe_on_words(characters, split_words(training_text), vocab_size);
}

Tokenizer learn_bpe_on_words(const Tokenizer& characters, const std::vector<std::u32string>& training_words,
                             std::size_t vocab_size) {
    if (vocab_size < characters.size())
        throw InputError(describe("a vocabulary of ", vocab_size, " is smaller than its ", characters.size(),
                                  " characters"));
    // pass 1: each distinct word once, as character ids, with its count
    std::map<std::u32string, std::int64_t> counted;
    for (const std::u32string& w : training_words) ++counted[w];
    const auto ids = character_ids(characters);
    std::vector<TokenIds> words;
    std::vector<std::int64_t> weight;
    for (const auto& [w, count] : counted) words.push_back(characters_of(ids, w)), weight.push_back(count);

    // pass 2: every adjacent pair's count, and the words that hold it; each count, when it changes,
    // also goes into a heap, so that the most frequent pair is found without reading them all
    // (an entry whose count has changed since is skipped when it comes up)
    struct Counted {
        std::int64_t count;
        PairKey key;
        bool operator<(const Counted& o) const { return count < o.count || (count == o.count && key > o.key); }
    };
    std::unordered_map<PairKey, std::int64_t> pair_count;
    std::unordered_map<PairKey, std::vector<std::size_t>> words_with;
    std::priority_queue<Counted> by_count;  // the top: the largest count, then the smallest (left, right)
    auto count_word = [&](std::size_t w, std::int64_t sign) {
        for (std::size_t i = 0; i + 1 < words[w].size(); ++i) {
            const PairKey k = key_of(words[w][i], words[w][i + 1]);
            const std::int64_t now = (pair_count[k] += sign * weight[w]);
            if (now == 0) pair_count.erase(k);
            else by_count.push({now, k});
            if (sign > 0) words_with[k].push_back(w);
        }
    };
    for (std::size_t w = 0; w < words.size(); ++w) count_word(w, +1);

    // pass 3: merge the most frequent pair (ties: the smallest (left, right)), recount its words
    Tokenizer t = characters;
    while (t.size() < vocab_size) {
        PairKey best = 0;
        std::int64_t best_count = 0;
        while (!by_count.empty()) {
            const Counted top = by_count.top();
            const auto now = pair_count.find(top.key);
            if (now != pair_count.end() && now->second == top.count) {
                best = top.key, best_count = top.count;
                break;
            }
            by_count.pop();  // its count has changed since (or it is gone)
        }
        if (best_count == 0) break;  // every word is one symbol
        const int left = int(best >> 32), right = int(best & 0xFFFFFFFFu), id = int(t.size());
        t.symbols.push_back(t.symbol(left) + t.symbol(right));
        t.merges.push_back({left, right, best_count});
        std::vector<std::size_t> touched = std::move(words_with[best]);
        words_with.erase(best);
        std::sort(touched.begin(), touched.end());
        touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
        for (std::size_t w : touched) {
            TokenIds after = merged(words[w], left, right, id);
            if (after.size() == words[w].size()) continue;  // an older entry: the pair is gone
            count_word(w, -1);
            words[w] = std::move(after);
            count_word(w, +1);
        }
    }
    return t;
}

Tokenizer first_symbols(const Tokenizer& tokenizer, std::size_t vocab_size) {
    if (vocab_size < tokenizer.characters() || vocab_size > tokenizer.size())
        throw InputError(describe("a vocabulary of ", vocab_size, " is not between ", tokenizer.characters(),
                                  " and ", tokenizer.size()));
    Tokenizer t = tokenizer;
    t.merges.resize(vocab_size - tokenizer.characters());
    t.symbols.resize(vocab_size);
    return t;
}

TokenIds encode_word(const Tokenizer& tokenizer, TokenIds characters) {
    return encode_ranked(tokenizer, ranks_of(tokenizer), std::move(characters));
}

TokenIds encode(const Tokenizer& tokenizer, const std::u32string& text) {
    return encode_words(tokenizer, split_words(text));
}

TokenIds encode_words(const Tokenizer& tokenizer, const std::vector<std::u32string>& words) {
    const Ranks ranks = ranks_of(tokenizer);
    const auto ids = character_ids(tokenizer);
    std::unordered_map<std::u32string, TokenIds> known;  // a word met before is not encoded again
    TokenIds out;
    for (const std::u32string& w : words) {
        auto found = known.find(w);
        if (found == known.end()) found = known.emplace(w, encode_ranked(tokenizer, ranks, characters_of(ids, w))).first;
        out.insert(out.end(), found->second.begin(), found->second.end());
    }
    return out;
}

std::u32string decode(const Tokenizer& tokenizer, const TokenIds& ids) {
    std::u32string text;
    for (int id : ids) {
        if (id < 0 || std::size_t(id) >= tokenizer.size())
            throw InputError(describe("the token id ", id, " is outside the vocabulary of ", tokenizer.size()));
        text += tokenizer.symbol(id);
    }
    return text;
}

std::string tokenizer_text(const Tokenizer& tokenizer) {
    std::ostringstream out;
    out << "bpe 1\ncharacters " << tokenizer.characters() << "\n";
    for (std::size_t i = 0; i < tokenizer.characters(); ++i) out << std::hex << unsigned(tokenizer.symbols[i][0]) << std::dec << "\n";
    out << "merges " << tokenizer.merges.size() << "\n";
    for (const Merge& m : tokenizer.merges) out << m.left << " " << m.right << " " << m.count << "\n";
    return out.str();
}

Tokenizer read_tokenizer(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    std::size_t number = 0;
    auto next = [&](const std::string& expected) {
        if (!std::getline(in, line)) throw InputError(describe("line ", number + 1, ": missing, expected ", expected));
        ++number;
        return std::istringstream(line);
    };
    auto refuse = [&](const std::string& expected) {
        return InputError(describe("line ", number, ": \"", line.substr(0, 40), "\", expected ", expected));
    };
    std::string word, end;
    long long count = 0;
    if (!(next("bpe 1") >> word >> count) || word != "bpe" || count != 1) throw refuse("bpe 1");
    if (!(next("characters N") >> word >> count) || word != "characters" || count < 0 || count > 0x110000)
        throw refuse("characters N");
    Tokenizer t;
    for (long long i = 0; i < count; ++i) {
        unsigned long code = 0;
        auto fields = next("a code point in hexadecimal");
        if (!(fields >> std::hex >> code) || (fields >> end) || code > 0x10FFFF ||
            (!t.symbols.empty() && code <= t.symbols.back()[0]))
            throw refuse("a code point in hexadecimal, larger than the one before");
        t.symbols.push_back(std::u32string(1, char32_t(code)));
    }
    if (!(next("merges M") >> word >> count) || word != "merges" || count < 0 || count > 1000000)
        throw refuse("merges M (0 to 1000000)");
    for (long long r = 0; r < count; ++r) {
        Merge m;
        long long size = static_cast<long long>(t.size());
        auto fields = next("left right count");
        if (!(fields >> m.left >> m.right >> m.count) || (fields >> end) || m.left < 0 || m.left >= size ||
            m.right < 0 || m.right >= size || m.count < 0)
            throw refuse(describe("left right count, ids below ", size));
        t.symbols.push_back(t.symbol(m.left) + t.symbol(m.right));
        t.merges.push_back(m);
    }
    if (std::getline(in, line) && !line.empty()) {
        ++number;
        throw refuse("the end of the file");
    }
    return t;
}
