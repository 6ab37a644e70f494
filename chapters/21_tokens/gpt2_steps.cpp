#include "chapters/21_tokens/gpt2_steps.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/display/fit_width.hpp"
#include "common/byte_tokens/gpt2_files.hpp"
#include "common/numbers/input_error.hpp"
#include "common/text/corpus.hpp"
#include "common/text/token_text.hpp"

namespace {

std::u32string characters_of(const std::string& utf8) { return code_points_of(utf8, "--text"); }

// What a symbol of bytes says, as text: its bytes decoded, a space shown as ␣ (a piece of a
// character, bytes that are not whole UTF-8, as the symbol's own characters).
std::string said(const std::string& symbol) {
    const ByteLevelBpe& bpe = gpt2_tokenizer();
    const auto id = bpe.ids.find(symbol);
    const std::string bytes = decode_bytes(bpe, {id->second});
    try {
        return visible_symbol(characters_of(bytes));
    } catch (const InputError&) {
        return symbol;  // part of a character
    }
}

std::string joined(const std::vector<std::string>& symbols, const std::string& between) {
    std::string out;
    for (std::size_t i = 0; i < symbols.size(); ++i) out += (i ? between : "") + symbols[i];
    return out;
}

}  // namespace

ByteLevelRead read_with_gpt2(Lesson& lesson, const std::string& text) {
    ByteLevelRead g;
    g.text = text;
    g.pieces = gpt2_pieces(text);  // UTF-8: read_inputs checked it
    const ByteLevelBpe& bpe = gpt2_tokenizer();
    for (const std::string& piece : g.pieces) g.merges.push_back(piece_merges(bpe, piece));
    g.ids = encode_bytes(bpe, text);
    g.byte_values = Matrix(xt::zeros<float>({std::size_t(1), text.size()}));
    for (std::size_t i = 0; i < text.size(); ++i) g.byte_values(0, i) = float(static_cast<unsigned char>(text[i]));
    g.token_ids = Matrix(xt::zeros<float>({std::size_t(1), g.ids.size()}));
    Labels tokens, bytes;
    for (std::size_t i = 0; i < g.ids.size(); ++i) {
        g.token_ids(0, i) = float(g.ids[i]);
        tokens.push_back(bpe.symbols[std::size_t(g.ids[i])]);
    }
    for (const char b : text) bytes.push_back(byte_symbol(static_cast<unsigned char>(b)));
    lesson.labels({{"gpt2_tokens", tokens}, {"gpt2_bytes", bytes}});
    return g;
}

MatrixList ByteLevelRead::matrices() const {
    return {{"gpt2_bytes", byte_values, "the text's UTF-8 bytes", "", "gpt2_bytes", MatrixKind::indices},
            {"gpt2_ids", token_ids, "GPT-2's ids of the text", "", "gpt2_tokens", MatrixKind::indices}};
}

void show_gpt2_bytes(Lesson& lesson, const ByteLevelRead& g) {
    const std::u32string characters = characters_of(g.text);
    lesson.say(wrap_to_width(fmt::format(
        "GPT-2 reads bytes, not characters. Your text's {} characters are {} bytes of UTF-8, and each byte "
        "is one of GPT-2's first 256 symbols, written as one printable character: the printable bytes stand "
        "for themselves, the other 68 (a space, a newline, …) are moved past ÿ, so a space is Ġ and a newline "
        "Ċ. No text is unknown to it: a character it never saw is still its bytes.",
        characters.size(), g.text.size()), 100));
    std::vector<TextRow> rows;
    const std::size_t shown = std::min<std::size_t>(characters.size(), 24);
    for (std::size_t i = 0; i < shown; ++i) {
        const std::string utf8 = utf8_of(std::u32string(1, characters[i]));
        std::vector<std::string> hex, symbols;
        for (const char b : utf8) {
            hex.push_back(fmt::format("{:02X}", static_cast<unsigned char>(b)));
            symbols.push_back(byte_symbol(static_cast<unsigned char>(b)));
        }
        rows.push_back({visible_symbol(std::u32string(1, characters[i])), fmt::format("U+{:04X}", unsigned(characters[i])),
                        joined(hex, " "), joined(symbols, " ")});
    }
    lesson.table({"character", "code point", "UTF-8 bytes", "GPT-2's byte symbols"}, rows, 24);
    if (shown < characters.size())
        lesson.say_under(fmt::format("(the first {} of {} characters; --dump writes every byte, as gpt2_bytes)", shown,
                                     characters.size()));
}

void show_gpt2_pieces(Lesson& lesson, const ByteLevelRead& g) {
    lesson.say(wrap_to_width(fmt::format(
        "Before any merge, GPT-2's pattern cuts the text into pieces, and no token will cross one. At each "
        "place it tries, in order: the endings 's 't 're 've 'm 'll 'd; an optional space and a run of "
        "letters; of numbers; of other symbols; and whitespace (a run of spaces before a word leaves its last "
        "one to the word). {} pieces:",
        g.pieces.size()), 100));
    std::string out = "|";
    for (const std::string& piece : g.pieces) out += visible_symbol(characters_of(piece)) + "|";
    lesson.say(cut_to_width(out, 100));
}

void show_gpt2_merges(Lesson& lesson, const ByteLevelRead& g) {
    const ByteLevelBpe& bpe = gpt2_tokenizer();
    lesson.say(wrap_to_width(fmt::format(
        "In each piece, GPT-2 merges the adjacent pair of the lowest rank (its line among the {} merges of "
        "vocab.bpe), every occurrence of it, again and again until no pair of the piece has a rank. Each "
        "piece's symbols after every merge:",
        with_commas(bpe.ranks.size())), 100));
    std::vector<TextRow> rows;
    for (std::size_t p = 0; p < g.pieces.size(); ++p) {
        const std::vector<std::vector<std::string>>& steps = g.merges[p];
        std::vector<std::string> stages;
        for (const std::vector<std::string>& s : steps) stages.push_back(joined(s, "|"));
        rows.push_back({visible_symbol(characters_of(g.pieces[p])), std::to_string(steps.size() - 1),
                        std::to_string(steps.back().size()), joined(stages, " → ")});
    }
    lesson.table({"piece", "merges", "tokens", "its byte symbols, merge by merge"}, rows, 40);
}

void show_gpt2_ids(Lesson& lesson, const ByteLevelRead& g) {
    const ByteLevelBpe& bpe = gpt2_tokenizer();
    lesson.say(wrap_to_width(fmt::format(
        "Each token is a number in GPT-2's vocabulary of {} (encoder.json: the 256 bytes, one symbol per "
        "merge, and <|endoftext|>). Your text is {} tokens:",
        with_commas(bpe.size()), g.ids.size()), 100));
    lesson.show(g.token_ids, Style().decimals(0).indices());
    const std::string back = decode_bytes(bpe, g.ids);
    lesson.say(wrap_to_width(fmt::format(
        "decode() turns each id's symbol back into its bytes: the {} id{} give{} back {} bytes, {} your text.",
        g.ids.size(), g.ids.size() == 1 ? "" : "s", g.ids.size() == 1 ? "s" : "", back.size(),
        back == g.text ? "exactly" : "NOT"), 100));
}

void show_gpt2_beside_the_book(Lesson& lesson, const ByteLevelRead& g, const std::optional<Tokenizer>& book,
                               const std::string& unread) {
    if (!book) {
        lesson.say(wrap_to_width(fmt::format(
            "The book's tokenizer cannot read this text: it has no symbol for {} (its first symbols are the "
            "characters of the book). GPT-2's reads every text, byte by byte.",
            unread), 100));
        return;
    }
    lesson.say(wrap_to_width(fmt::format(
        "The book's tokenizer ({} symbols learned on Moby-Dick with --vocab) and GPT-2's ({}), piece by piece:",
        book->size(), with_commas(gpt2_tokenizer().size())), 100));
    std::vector<TextRow> rows;
    std::size_t book_total = 0, gpt2_total = 0;
    for (std::size_t p = 0; p < g.pieces.size(); ++p) {
        const TokenIds ids = encode(*book, characters_of(g.pieces[p]));
        std::vector<std::string> theirs;
        for (const std::string& s : g.merges[p].back()) theirs.push_back(said(s));
        book_total += ids.size(), gpt2_total += theirs.size();
        rows.push_back({visible_symbol(characters_of(g.pieces[p])), bars(*book, ids), std::to_string(ids.size()),
                        "|" + joined(theirs, "|") + "|", std::to_string(theirs.size())});
    }
    rows.push_back({"all", "", std::to_string(book_total), "", std::to_string(gpt2_total)});
    lesson.table({"piece", "the book's", "count", "GPT-2's", "count"}, rows, 24);
}

void check_gpt2(SelfChecks& check, const ByteLevelRead& g) {
    const ByteLevelBpe& bpe = gpt2_tokenizer();
    check.that("GPT-2's pieces joined are the text", joined(g.pieces, "") == g.text);
    // The merges applied once each in the order of their ranks, the slow way: the rank rule's tokens.
    std::vector<std::pair<std::string, std::string>> by_rank(bpe.ranks.size());
    for (const auto& [pair, rank] : bpe.ranks) by_rank[std::size_t(rank)] = pair;
    bool same = true;
    for (std::size_t p = 0; p < g.pieces.size(); ++p) {
        std::vector<std::string> word = g.merges[p].front();
        for (const auto& [left, right] : by_rank) {
            if (word.size() < 2) break;
            std::vector<std::string> merged;
            for (std::size_t i = 0; i < word.size();) {
                const bool pair = i + 1 < word.size() && word[i] == left && word[i + 1] == right;
                merged.push_back(pair ? word[i] + word[i + 1] : word[i]);
                i += pair ? 2 : 1;
            }
            word.swap(merged);
        }
        same = same && word == g.merges[p].back();
    }
    check.that(fmt::format("all {} merges applied in the order of their ranks give the same tokens (the rank rule)",
                           with_commas(bpe.ranks.size())),
               same);
    bool named = true;
    for (const int id : g.ids) named = named && bpe.ids.at(bpe.symbols.at(std::size_t(id))) == id;
    check.that("every token's symbol has that id in encoder.json", named);
    check.that("decode(encode(text)) == text, byte for byte", decode_bytes(bpe, g.ids) == g.text);
}
