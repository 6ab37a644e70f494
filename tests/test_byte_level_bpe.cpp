// GPT-2's byte-level BPE (common/byte_tokens/byte_level_bpe.hpp) on a small vocabulary written
// here: the byte symbols, the pattern's pieces on the cases it decides, the merges by rank,
// decode(encode(s)) == s for random UTF-8 text, and the files refused line by line. (Its ids
// against GPT-2's own, on the real files, are tests/gpt2_tokens.py's.)
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "common/byte_tokens/byte_level_bpe.hpp"
#include "common/byte_tokens/byte_words.hpp"
#include "common/numbers/input_error.hpp"

namespace {

// The 256 byte symbols, then the symbols the merges make, as encoder.json writes them.
std::string encoder_with(const std::vector<std::string>& merged) {
    std::string json = "{";
    int id = 0;
    const auto add = [&](const std::string& symbol) {
        std::string quoted;
        for (const char c : symbol) quoted += c == '"' ? std::string("\\\"") : c == '\\' ? std::string("\\\\") : std::string(1, c);
        json += (id ? ", \"" : "\"") + quoted + "\": " + std::to_string(id);
        ++id;
    };
    for (int b = 0; b < 256; ++b) add(byte_symbol(static_cast<unsigned char>(b)));
    for (const std::string& s : merged) add(s);
    return json + "}";
}

// A vocabulary with merges Ġ t, h e, Ġt he, a t (in this rank order).
ByteLevelBpe small() {
    return read_byte_level_bpe(encoder_with({"Ġt", "he", "Ġthe", "at"}), "encoder.json",
                               "#version: 0.2\nĠ t\nh e\nĠt he\na t\n", "vocab.bpe");
}

std::vector<std::string> symbols_of(const ByteLevelBpe& bpe, const TokenIds& ids) {
    std::vector<std::string> out;
    for (const int id : ids) out.push_back(bpe.symbols.at(std::size_t(id)));
    return out;
}

}  // namespace

TEST_CASE("GPT-2's byte symbols: printable bytes stand for themselves, the others move past ÿ") {
    CHECK(byte_symbol('A') == "A");
    CHECK(byte_symbol(' ') == "Ġ");   // U+0120
    CHECK(byte_symbol('\n') == "Ċ");  // U+010A
    CHECK(byte_symbol(0xE9) == "é");  // printable Latin-1 stands for itself
    CHECK(byte_symbol(0xAD) == "Ń");  // the soft hyphen is not printable: U+0143, the last moved
    CHECK(symbol_byte(U'Ġ') == ' ');
    CHECK(symbol_byte(U'Ċ') == '\n');
    const ByteLevelBpe bpe = small();  // its ids 0 … 255 are the bytes' symbols, in byte order
    for (int b = 0; b < 256; ++b) CHECK(decode_bytes(bpe, {b}) == std::string(1, static_cast<char>(b)));
    CHECK(symbol_byte(U'\u0144') == -1);
}

TEST_CASE("GPT-2's pattern cuts text as its regular expression does") {
    using P = std::vector<std::string>;
    CHECK(gpt2_pieces("Hello world") == P{"Hello", " world"});
    CHECK(gpt2_pieces("it's they'd don't") == P{"it", "'s", " they", "'d", " don", "'t"});
    CHECK(gpt2_pieces("IT'S") == P{"IT", "'", "S"});  // the endings are lower case only
    CHECK(gpt2_pieces("a  b") == P{"a", " ", " b"});  // a run of spaces leaves its last to the word
    CHECK(gpt2_pieces("a   ") == P{"a", "   "});       // at the end, the whole run
    CHECK(gpt2_pieces("x\n\ny") == P{"x", "\n", "\n", "y"});  // only a space joins the word after it
    CHECK(gpt2_pieces("1851, 42") == P{"1851", ",", " 42"});
    CHECK(gpt2_pieces("café 🐋!") == P{"café", " 🐋!"});
    CHECK(gpt2_pieces("") == P{});
    CHECK_THROWS_AS(gpt2_pieces(std::string("ab\xff")), InputError);
}

TEST_CASE("merges by rank, every occurrence, and the ids back to the same bytes") {
    const ByteLevelBpe bpe = small();
    CHECK(bpe.size() == 260);
    CHECK(symbols_of(bpe, encode_bytes(bpe, " the cat")) == std::vector<std::string>{"Ġthe", "Ġ", "c", "at"});
    const auto steps = piece_merges(bpe, " the");
    REQUIRE(steps.size() == 4);  // Ġ t h e → Ġt h e → Ġt he → Ġthe
    CHECK(steps[1] == std::vector<std::string>{"Ġt", "h", "e"});
    CHECK(steps.back() == std::vector<std::string>{"Ġthe"});
    CHECK(decode_bytes(bpe, encode_bytes(bpe, " the cat")) == " the cat");
    CHECK_THROWS_AS(decode_bytes(bpe, {260}), InputError);
}

TEST_CASE("decode(encode(s)) == s for random UTF-8 text of every plane") {
    const ByteLevelBpe bpe = small();
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> length(0, 40), plane(0, 3);
    for (int trial = 0; trial < 300; ++trial) {
        std::u32string text;
        for (int i = length(rng); i > 0; --i) {
            const int p = plane(rng);
            char32_t c = p == 0 ? char32_t(0x20 + rng() % 0x5F) : p == 1 ? char32_t(0xA0 + rng() % 0x700)
                       : p == 2 ? char32_t(0x4E00 + rng() % 0x5000) : char32_t(0x1F300 + rng() % 0x400);
            if (rng() % 8 == 0) c = U"\t\n \u00a0\u3000'"[rng() % 6];
            text.push_back(c);
        }
        std::string utf8;
        for (const char32_t c : text) {  // UTF-8 by hand
            if (c < 0x80) utf8 += char(c);
            else if (c < 0x800) utf8 += char(0xC0 | (c >> 6)), utf8 += char(0x80 | (c & 0x3F));
            else if (c < 0x10000) utf8 += char(0xE0 | (c >> 12)), utf8 += char(0x80 | ((c >> 6) & 0x3F)), utf8 += char(0x80 | (c & 0x3F));
            else utf8 += char(0xF0 | (c >> 18)), utf8 += char(0x80 | ((c >> 12) & 0x3F)), utf8 += char(0x80 | ((c >> 6) & 0x3F)), utf8 += char(0x80 | (c & 0x3F));
        }
        std::string joined;
        for (const std::string& piece : gpt2_pieces(utf8)) joined += piece;
        REQUIRE(joined == utf8);
        REQUIRE(decode_bytes(bpe, encode_bytes(bpe, utf8)) == utf8);
    }
}

TEST_CASE("GPT-2's files, refused in one line naming the place") {
    const std::string encoder = encoder_with({"Ġt"});
    const auto refusal = [](const std::string& json, const std::string& merges) {
        try {
            read_byte_level_bpe(json, "encoder.json", merges, "vocab.bpe");
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    CHECK(refusal(encoder, "#version: 0.2\nĠ t\n") == "accepted");
    CHECK(refusal(encoder, "#version: 0.2\nĠ t\nx y\n") == "vocab.bpe:3: a merge of symbols that encoder.json lacks");
    CHECK(refusal(encoder, "#version: 0.2\nĠt\n") == "vocab.bpe:2: expected two symbols separated by one space (a merge)");
    CHECK(refusal(encoder, "#version: 0.2\nĠ t\nĠ t\n") == "vocab.bpe:3: this merge a second time");
    CHECK(refusal(encoder.substr(0, 100), "") .rfind("encoder.json: byte", 0) == 0);
    CHECK(refusal("[1, 2]", "").rfind("encoder.json: byte 1: expected {", 0) == 0);
    CHECK(refusal("{\"a\": 0, \"b\": 0}", "") == "encoder.json: the id 0 a second time");
    CHECK(refusal("{\"a\": 99999999}", "") == "encoder.json: the id 99999999 of a: past the 1 symbols (ids run 0 … 0)");
}

TEST_CASE("chapter 21's merges learned on bytes: words cut on characters, any text read back whole") {
    // A training text of English and accents: the merges join bytes inside words, never across.
    const std::u32string training = U"the café the naïve whale, the café! ";
    std::u32string many;
    for (int i = 0; i < 20; ++i) many += training;
    const Tokenizer bytes = byte_characters();
    REQUIRE(bytes.size() == 256);
    const Tokenizer t = learn_bpe_on_words(bytes, byte_words(many), 300);
    CHECK(t.size() > 256);  // (the words run out of pairs before 300)
    // "é" is two bytes, Ã and ©, inside the word "café" (cut on characters, where é is a letter)
    const std::vector<std::u32string> words = byte_words(U"café ☕");
    REQUIRE(words.size() == 2);
    CHECK(words[0] == U"caf\u00c3\u00a9");
    CHECK(words[1] == U"\u0120\u00e2\u013a\u0137");  // Ġ, then ☕'s three bytes E2 98 95
    // any text, also characters the training never saw, comes back whole
    std::mt19937 rng(11);
    for (int trial = 0; trial < 200; ++trial) {
        std::u32string text;
        for (int i = int(rng() % 30); i > 0; --i) {
            char32_t c = rng() % 3 == 0 ? char32_t(0x20 + rng() % 0x5F) : char32_t(0xA0 + rng() % 0x1F000);
            if (c >= 0xD800 && c <= 0xDFFF) c -= 0x800;  // surrogates are no characters
            text.push_back(c);
        }
        const TokenIds ids = encode_words(t, byte_words(text));
        REQUIRE(text_of_byte_symbols(decode(t, ids)) == text);
    }
    // the bytes of half a character are no text
    CHECK_THROWS_AS(text_of_byte_symbols(U"caf\u00c3"), InputError);
}
