// The tokenizer of common/tokens/tokenizer.hpp: the rule that cuts words, byte-pair encoding
// against a slow recount of every pair before each merge, decode(encode(s)) == s for random
// strings and for every word of a text, and the tokenizer file written and read back.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/numbers/input_error.hpp"
#include "common/text/corpus.hpp"
#include "common/tokens/tokenizer.hpp"

namespace {

// A paragraph of Moby-Dick's first chapter (the unit tests do not need the whole book).
const std::u32string paragraph =
    U"Call me Ishmael. Some years ago—never mind how long precisely—having little or no money in my "
    U"purse, and nothing particular to interest me on shore, I thought I would sail about a little and "
    U"see the watery part of the world. It is a way I have of driving off the spleen and regulating the "
    U"circulation. Whenever I find myself growing grim about the mouth; whenever it is a damp, drizzly "
    U"November in my soul; whenever I find myself involuntarily pausing before coffin warehouses, and "
    U"bringing up the rear of every funeral I meet; and especially whenever my hypos get such an upper "
    U"hand of me, that it requires a strong moral principle to prevent me from deliberately stepping "
    U"into the street, and methodically knocking people's hats off—then, I account it high time to get "
    U"to sea as soon as I can.\n\nThere now is your insular city of the Manhattoes, 1851.";

// Learning the slow way: every pair recounted over every word before each merge.
std::vector<Merge> merges_by_recount(const Tokenizer& characters, const std::u32string& text, std::size_t merges) {
    std::map<std::u32string, std::int64_t> counted;
    for (const std::u32string& w : split_words(text)) ++counted[w];
    std::vector<std::pair<TokenIds, std::int64_t>> words;
    for (const auto& [w, count] : counted) words.push_back({encode(characters, w), count});
    std::vector<Merge> out;
    for (std::size_t r = 0; r < merges; ++r) {
        std::map<std::pair<int, int>, std::int64_t> pairs;
        for (const auto& [ids, count] : words)
            for (std::size_t i = 0; i + 1 < ids.size(); ++i) pairs[{ids[i], ids[i + 1]}] += count;
        Merge best;
        for (const auto& [pair, count] : pairs)
            if (count > best.count) best = {pair.first, pair.second, count};
        if (best.count == 0) break;
        const int id = static_cast<int>(characters.size() + r);
        for (auto& [ids, count] : words) {
            TokenIds merged;
            for (std::size_t i = 0; i < ids.size(); ++i)
                if (i + 1 < ids.size() && ids[i] == best.left && ids[i + 1] == best.right) merged.push_back(id), ++i;
                else merged.push_back(ids[i]);
            ids = merged;
        }
        out.push_back(best);
    }
    return out;
}

std::vector<std::u32string> words_of(const std::u32string& text) { return split_words(text); }

}  // namespace

TEST_CASE("words: one optional space, then a run of letters, digits or symbols; other whitespace alone") {
    CHECK(words_of(U"The cat sat on the mat.") ==
          std::vector<std::u32string>{U"The", U" cat", U" sat", U" on", U" the", U" mat", U"."});
    CHECK(words_of(U"whale's 1851—\n\n  x") ==
          std::vector<std::u32string>{U"whale", U"'", U"s", U" 1851", U"—", U"\n", U"\n", U" ", U" x"});
    CHECK(words_of(U"café naïve") == std::vector<std::u32string>{U"café", U" naïve"});
    CHECK(words_of(U"a ") == std::vector<std::u32string>{U"a", U" "});
    CHECK(words_of(U"").empty());
}

TEST_CASE("characters: the distinct code points, sorted") {
    const Tokenizer t = char_tokenizer(U"banana\n");
    REQUIRE(t.size() == 4);
    CHECK(t.symbol(0) == U"\n");
    CHECK(t.symbol(1) == U"a");
    CHECK(t.symbol(3) == U"n");
    CHECK(t.merges.empty());
}

TEST_CASE("characters: random texts over every plane, and values past U+10FFFF, give a sorted copy's distinct values") {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 20; ++trial) {
        std::u32string text(std::size_t(rng() % 300), U' ');
        for (char32_t& c : text) {
            const auto pick = std::uint32_t(rng() % 10);
            c = pick < 6 ? char32_t(rng() % 128) : pick < 9 ? char32_t(rng() % 0x110000) : char32_t(0x110000 + rng() % 4);
        }
        std::u32string expected = text;  // the definition, by sorting
        std::sort(expected.begin(), expected.end());
        expected.erase(std::unique(expected.begin(), expected.end()), expected.end());
        const Tokenizer t = char_tokenizer(text);
        REQUIRE(t.size() == expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) CHECK(t.symbol(int(i)) == std::u32string(1, expected[i]));
    }
}

// UTF-8 by its definition: 1 byte below U+80, 2 below U+800, 3 below U+10000, else 4.
std::string utf8_by_hand(const std::u32string& text) {
    std::string out;
    for (const char32_t c : text) {
        const auto byte = [&](std::uint32_t b) { out.push_back(char(b)); };
        if (c < 0x80) byte(c);
        else if (c < 0x800) byte(0xC0 | c >> 6), byte(0x80 | (c & 0x3F));
        else if (c < 0x10000) byte(0xE0 | c >> 12), byte(0x80 | (c >> 6 & 0x3F)), byte(0x80 | (c & 0x3F));
        else byte(0xF0 | c >> 18), byte(0x80 | (c >> 12 & 0x3F)), byte(0x80 | (c >> 6 & 0x3F)), byte(0x80 | (c & 0x3F));
    }
    return out;
}

TEST_CASE("code points: random UTF-8 texts, mostly ASCII, read back; a byte that is not UTF-8 is named by its place") {
    std::mt19937 rng(11);
    for (int trial = 0; trial < 20; ++trial) {
        std::u32string text(std::size_t(rng() % 300), U' ');
        for (char32_t& c : text) {
            const auto pick = std::uint32_t(rng() % 10);
            do c = pick < 7 ? char32_t(rng() % 128) : char32_t(rng() % 0x110000);
            while (c >= 0xD800 && c <= 0xDFFF);  // surrogates are no code points of UTF-8
        }
        REQUIRE(code_points_of(utf8_by_hand(text), "t") == text);
        CHECK_THROWS_WITH_AS(code_points_of("abc\xff" + utf8_by_hand(text), "f.txt"),
                             "f.txt: not UTF-8 text (at byte 3)", InputError);
    }
}

TEST_CASE("learn_bpe gives the merges and counts of a recount of every pair before each merge") {
    const Tokenizer characters = char_tokenizer(paragraph);
    const Tokenizer t = learn_bpe(characters, paragraph, characters.size() + 60);
    const std::vector<Merge> slow = merges_by_recount(characters, paragraph, 60);
    REQUIRE(t.merges.size() == slow.size());
    for (std::size_t r = 0; r < slow.size(); ++r) {
        CAPTURE(r);
        CHECK(t.merges[r].left == slow[r].left);
        CHECK(t.merges[r].right == slow[r].right);
        CHECK(t.merges[r].count == slow[r].count);
    }
    // A symbol is its pair's text; the first merge of English prose joins a space to a letter.
    CHECK(t.symbol(int(characters.size())) == t.symbol(t.merges[0].left) + t.symbol(t.merges[0].right));
}

TEST_CASE("a tie goes to the smallest (left, right), and learning stops when every word is one symbol") {
    // (a, b), (␣, c) and (c, d) are each seen twice: the space has the smallest id, 0.
    const Tokenizer characters = char_tokenizer(U"ab cd ab cd");
    const Tokenizer t = learn_bpe(characters, U"ab cd ab cd", 100);
    REQUIRE(!t.merges.empty());
    CHECK(t.symbol(t.merges[0].left) == U" ");
    CHECK(t.symbol(t.merges[0].right) == U"c");
    CHECK(encode(t, U"ab cd").size() == 2);  // "ab", " cd": nothing left to merge
    CHECK(t.size() < 100);
    CHECK_THROWS_AS(learn_bpe(characters, U"ab", 2), InputError);
}

TEST_CASE("decode(encode(s)) == s: random strings over the vocabulary, and every word of the text") {
    const Tokenizer characters = char_tokenizer(paragraph);
    const Tokenizer t = learn_bpe(characters, paragraph, characters.size() + 80);
    std::mt19937 random(21);
    for (int trial = 0; trial < 500; ++trial) {
        std::u32string s;
        const std::size_t length = random() % 40;
        for (std::size_t i = 0; i < length; ++i) s += t.symbol(int(random() % characters.size()));
        CAPTURE(trial);
        const TokenIds ids = encode(t, s);
        CHECK(decode(t, ids) == s);
        CHECK(ids.size() <= s.size());
    }
    for (const std::u32string& w : split_words(paragraph)) CHECK(decode(t, encode(t, w)) == w);
    CHECK(encode(t, paragraph).size() < paragraph.size() * 2 / 3);
}

TEST_CASE("encode's rank rule equals applying every merge in the order learned") {
    const Tokenizer characters = char_tokenizer(paragraph);
    const Tokenizer t = learn_bpe(characters, paragraph, characters.size() + 80);
    for (const std::u32string& w : split_words(paragraph)) {
        TokenIds ids = encode(characters, w);
        for (std::size_t r = 0; r < t.merges.size(); ++r) {
            TokenIds merged;
            for (std::size_t i = 0; i < ids.size(); ++i)
                if (i + 1 < ids.size() && ids[i] == t.merges[r].left && ids[i + 1] == t.merges[r].right)
                    merged.push_back(int(characters.size() + r)), ++i;
                else merged.push_back(ids[i]);
            ids = merged;
        }
        CHECK(encode(t, w) == ids);
    }
}

TEST_CASE("a character outside the vocabulary, and an id outside it, are InputErrors naming them") {
    const Tokenizer t = char_tokenizer(U"abc");
    CHECK_THROWS_WITH_AS(encode(t, U"abd"), "the character 'd' (U+0064) is not in the vocabulary of 3 characters",
                         InputError);
    CHECK_THROWS_AS(decode(t, {3}), InputError);
    CHECK_THROWS_AS(decode(t, {-1}), InputError);
}

TEST_CASE("the tokenizer file: written and read back, and a bad line named") {
    const Tokenizer characters = char_tokenizer(paragraph);
    const Tokenizer t = learn_bpe(characters, paragraph, characters.size() + 30);
    const Tokenizer back = read_tokenizer(tokenizer_text(t));
    CHECK(back.symbols == t.symbols);
    CHECK(encode(back, paragraph) == encode(t, paragraph));
    CHECK(first_symbols(t, characters.size() + 10).merges.size() == 10);
    CHECK_THROWS_WITH_AS(read_tokenizer("bpe 1\ncharacters 2\n61\n61\nmerges 0\n"),
                         "line 4: \"61\", expected a code point in hexadecimal, larger than the one before",
                         InputError);
    CHECK_THROWS_AS(read_tokenizer("bpe 1\ncharacters 1\n61\nmerges 1\n0 1 5\n"), InputError);  // id 1 not made yet
    CHECK_THROWS_AS(read_tokenizer("bpe 2\n"), InputError);
    CHECK_THROWS_AS(read_tokenizer(""), InputError);
}
