// Chapter 21 · From text to tokens
//
// The lesson: Moby-Dick's characters, then byte-pair encoding learned on its first 90 %: the
// first merges, the vocabulary growing, the learner's sentence split merge by merge, and what a
// larger vocabulary buys on the held-out 10 %. The learning is common/tokens/tokenizer.cpp; the
// loops of math.cpp show it and check it. With --tokenizer gpt2, GPT-2's own tokenizer instead,
// on bytes (gpt2_steps.hpp), beside the book's.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/21_tokens/checks.hpp"
#include "chapters/21_tokens/gpt2_steps.hpp"
#include "chapters/21_tokens/math.hpp"
#include "chapters/21_tokens/reading.hpp"
#include "common/display/fit_width.hpp"
#include "common/display/text_width.hpp"
#include "common/byte_tokens/gpt2_files.hpp"
#include "common/lesson/lesson.hpp"
#include "common/numbers/input_error.hpp"
#include "common/output/carried_files.hpp"
#include "common/text/corpus.hpp"
#include "common/text/token_text.hpp"

namespace {

const std::size_t fewest_characters = 1000;  // of --corpus: enough words to count pairs in
const std::vector<std::size_t> table_sizes = {128, 256, 384, 512, 768, 1024};

struct Learned {
    Tokenizer largest;    // learned up to the largest size any step shows
    Tokenizer tokenizer;  // its first --vocab symbols
    TokensResult r;
    double seconds = 0;   // the learning's time (not printed by the default run: it varies)
    MatrixList matrices() const { return r.matrices(); }
};

void show_characters(Lesson& lesson, const Corpus& corpus, const Tokenizer& characters, const Reading& reading) {
    const std::size_t all = corpus.text.size(), training = corpus.training_size();
    lesson.say(wrap_to_width(fmt::format(
        "{}: {} characters (code points). The first 90 %, {}, teach; the last {} are held out to measure. {}",
        corpus.name, with_commas(all), with_commas(training), with_commas(all - training),
        reading.bytes ? fmt::format("With --bytes the first vocabulary is the {} bytes, id b for byte b, each shown "
                                    "as GPT-2 shows it (a space Ġ, a newline Ċ); a character beyond ASCII is two to "
                                    "four bytes, so no text is unknown. Each byte's count in the UTF-8 text:",
                                    characters.size())
                      : fmt::format("{} distinct characters are the first vocabulary, ids in the order of their "
                                    "code points:", characters.size())), 100));
    std::vector<std::size_t> count(characters.size(), 0);
    for (int id : reading.encode(characters, corpus.text)) ++count[std::size_t(id)];
    const std::size_t per_row = 4, lines = (characters.size() + per_row - 1) / per_row;
    std::vector<TextRow> rows(lines);
    for (std::size_t i = 0; i < characters.size(); ++i) {
        TextRow& row = rows[i % lines];
        row.insert(row.end(), {std::to_string(i), visible_symbol(characters.symbol(int(i))), with_commas(count[i])});
    }
    for (TextRow& row : rows) row.resize(3 * per_row);
    const std::string symbol = reading.bytes ? "byte" : "char";
    lesson.table({"id", symbol, "count", "id", symbol, "count", "id", symbol, "count", "id", symbol, "count"}, rows, 12);
}

void show_words(Lesson& lesson, const std::u32string& sentence, const Reading& reading) {
    lesson.say(wrap_to_width(
        "Before any merge the text is cut into words, and no token will ever cross a word: a word is "
        "one optional space followed by a run of letters, of digits, or of other symbols (punctuation); "
        "any other whitespace (a newline) stands alone. The space belongs to the word after it, "
        "as in GPT-2, so \" cat\" and \"cat\" are different words.", 100));
    std::string out = "|";
    for (const std::u32string& w : split_words(sentence)) out += visible_symbol(w) + "|";
    lesson.say(cut_to_width(out, 100));
    if (!reading.bytes) return;
    out = "|";
    for (const std::u32string& w : reading.words(sentence)) out += visible_symbol(w) + "|";
    lesson.say(wrap_to_width("With --bytes, each word is then written as its UTF-8 bytes, one symbol a byte (the "
                             "words are cut first, on characters, where a letter is a letter):", 100));
    lesson.say(cut_to_width(out, 100));
}

void show_first_merges(Lesson& lesson, const Learned& l, std::size_t how_many, const Reading& reading) {
    if (l.tokenizer.merges.empty()) {  // --vocab as small as the first symbols: nothing to merge
        lesson.say(wrap_to_width(fmt::format(
            "No merge: --vocab {} is the {} {} themselves, so nothing is learned and every {} stays a token "
            "(a larger --vocab learns merges).", l.tokenizer.size(), l.tokenizer.characters(),
            reading.bytes ? "bytes" : "characters", reading.bytes ? "byte" : "character"), 100));
        return;
    }
    lesson.say(wrap_to_width(fmt::format(
        "Count every adjacent pair of symbols in every distinct word, weighted by how often the word occurs "
        "in the training text; merge the most frequent pair into a new symbol (a tie: the smallest "
        "(left, right) ids); repeat. The first {} of the {} merges ({} follows the rest):", how_many,
        l.tokenizer.merges.size(), lesson.ref("growing")), 100));
    std::vector<TextRow> rows;
    const Tokenizer& t = l.tokenizer;
    for (std::size_t r = 0; r < std::min(how_many, t.merges.size()); ++r) {
        const Merge& m = t.merges[r];
        rows.push_back({std::to_string(r + 1), std::to_string(m.left), std::to_string(m.right),
                        visible_symbol(t.symbol(m.left)) + " + " + visible_symbol(t.symbol(m.right)),
                        visible_symbol(t.symbol(int(t.characters() + r))), std::to_string(t.characters() + r),
                        with_commas(std::size_t(m.count))});
    }
    lesson.table({"merge", "left", "right", "pair", "new symbol", "its id", "count"}, rows, 40);
    lesson.say_under(reading.bytes ? "(Ġ is a space's byte, Ċ a newline's)" : "(␣ is a space, ⏎ a newline)");
}

void show_growing(Lesson& lesson, const Learned& l, std::size_t vocab, const Reading& reading) {
    const Tokenizer& t = l.tokenizer;
    // The learning stops early when every word of the text is one symbol: nothing is left to merge.
    const std::string first = reading.bytes ? "bytes" : "characters";
    lesson.say(wrap_to_width(
        t.size() == vocab
            ? fmt::format("Each merge adds one symbol, up to --vocab {}: {} {} and {} merges. Later merges "
                          "join longer pieces and are seen less often:",
                          t.size(), t.characters(), first, t.merges.size())
            : fmt::format("Each merge adds one symbol: {} {} and {} merges make {} symbols, fewer than "
                          "--vocab {}, for by then every word of the text was one symbol and nothing was left to "
                          "merge. Later merges join longer pieces and are seen less often:",
                          t.characters(), first, t.merges.size(), t.size(), vocab),
        100));
    std::vector<TextRow> rows;
    std::size_t longest = 0;
    const std::size_t step = std::max<std::size_t>(1, t.merges.size() / 8);
    for (std::size_t r = 0; r < t.merges.size(); ++r) {
        const std::u32string& s = t.symbol(int(t.characters() + r));
        if (s.size() > t.symbol(int(longest)).size()) longest = t.characters() + r;
        if (r % step != 0 && r + 1 != t.merges.size()) continue;
        rows.push_back({std::to_string(t.characters() + r + 1), visible_symbol(s), with_commas(std::size_t(t.merges[r].count)),
                        visible_symbol(t.symbol(int(longest)))});
    }
    if (!rows.empty()) lesson.table({"vocabulary", "newest symbol", "its count", "longest so far"}, rows);
}

void show_split(Lesson& lesson, const Learned& l, const std::u32string& sentence, const Reading& reading) {
    const std::vector<SplitStep> steps = split_merge_by_merge(l.tokenizer, reading.words(sentence));
    const std::size_t changing = steps.size() - 1;
    lesson.say(wrap_to_width(fmt::format(
        "Your text, {} characters, with the merges applied in the order learned; {}. encode() gets the same "
        "tokens by GPT-2's rank rule: in each word, merge the pair learned first, again and again.",
        sentence.size(),
        changing == 0   ? fmt::format("no merge changes it, so each {} stays a token", reading.bytes ? "byte" : "character")
        : changing == 1 ? std::string("only the one merge that changes it is shown")
                        : fmt::format("only the {} merges that change it are shown", changing)), 100));
    std::vector<TextRow> rows;
    // A row the table would cut before its change (a long text, or --bytes) starts a few tokens
    // before where the merge changed it, after "…"; the terminal cuts the rest to its width, and
    // the page has it whole.
    constexpr std::size_t shown_before_cut = 70;  // columns of the text column that surely show
    for (std::size_t k = 0; k < steps.size(); ++k) {
        const SplitStep& s = steps[k];
        std::size_t from = 0;
        if (k > 0) {
            const TokenIds& before = steps[k - 1].ids;
            std::size_t changed = 0;
            while (changed < s.ids.size() && changed < before.size() && s.ids[changed] == before[changed]) ++changed;
            if (display_width(bars(l.tokenizer, TokenIds(s.ids.begin(), s.ids.begin() + std::ptrdiff_t(changed)))) + 12 >
                shown_before_cut)
                from = changed >= 3 ? changed - 3 : 0;
        }
        const std::string text = bars(l.tokenizer, TokenIds(s.ids.begin() + std::ptrdiff_t(from), s.ids.end()));
        rows.push_back({s.merge < 0 ? "—" : std::to_string(s.merge + 1), std::to_string(s.ids.size()),
                        from > 0 ? "…" + text : text});
    }
    lesson.table({"merge", "tokens", "the text"}, rows, 24);
    lesson.show(l.r.text_ids, Style().decimals(0).indices());  // ids are names of symbols, not amounts
}

void show_round_trip(Lesson& lesson, const Learned& l, const std::u32string& sentence, const Reading& reading) {
    TokenIds ids;
    for (float id : l.r.text_ids) ids.push_back(int(id));
    const std::u32string back = reading.decode(l.tokenizer, ids);
    lesson.say(wrap_to_width(fmt::format(
        "decode() joins the symbols' text{}: the {} ids give back \"{}\", {} your text. Every string of the "
        "vocabulary's {} comes back whole: every {} is a symbol, and a merge only joins.",
        reading.bytes ? " and reads its bytes as UTF-8" : "", ids.size(),
        cut_to_width(utf8_of(back), 60), back == sentence ? "exactly" : "NOT", reading.bytes ? "bytes" : "characters",
        reading.bytes ? "byte" : "character"), 100));
}

// Characters per token on the held-out text, and tokens per sentence (a sentence ends with
// . ! or ?), for each vocabulary size.
void show_sizes(Lesson& lesson, const Learned& l, const std::u32string& held_out, const std::u32string& text,
                const Reading& reading) {
    std::size_t sentences = 0;
    for (std::size_t i = 0; i < held_out.size(); ++i)
        if (std::u32string(U".!?").find(held_out[i]) != std::u32string::npos &&
            (i + 1 == held_out.size() || held_out[i + 1] == U' ' || held_out[i + 1] == U'\n'))
            ++sentences;
    std::vector<std::size_t> sizes = {l.largest.characters()};
    for (std::size_t s : table_sizes)
        if (s > sizes[0] && s <= l.largest.size()) sizes.push_back(s);
    std::vector<TextRow> rows;
    for (std::size_t s : sizes) {
        const Tokenizer t = first_symbols(l.largest, s);
        const double tokens = static_cast<double>(reading.encode(t, held_out).size());
        rows.push_back({std::to_string(s), format_number(double(held_out.size()) / tokens, 2),
                        sentences == 0 ? "no sentence" : format_number(tokens / double(sentences), 1),
                        std::to_string(reading.encode(t, text).size())});
    }
    lesson.table({"vocabulary", "characters per token", "tokens per sentence", "tokens of --text"}, rows);
    lesson.say_under(fmt::format("(held-out text: {} characters, {} sentence{}{})", with_commas(held_out.size()),
                                 with_commas(sentences), sentences == 1 ? "" : "s",
                                 sentences == 0 ? ": none ends in . ! or ? followed by a space" : ""));
}

// The chapter's own flags.
struct Flags {
    std::size_t vocab = 256, merges_shown = 10;
    std::string text = "The cat sat on the mat.", corpus_path;
    std::string tokenizer = "book";
    bool bytes = false;
};
const std::size_t bytes_vocab = 512;  // --bytes without --vocab: the 256 bytes and 256 merges

void add_flags(Lesson& lesson, Flags& f) {
    lesson.option("--vocab", f.vocab, "symbols in the vocabulary, characters included", Range{100, 1024});
    lesson.option("--text", f.text, "the sentence to split into tokens");
    lesson.option("--corpus", f.corpus_path, "your own UTF-8 text instead of Moby-Dick", Text::path);
    lesson.option("--merges-shown", f.merges_shown, "the first merges shown and recounted", Range{1, 40});
    lesson.option("--tokenizer", f.tokenizer,
                  "book: byte-pair encoding learned here on the book's characters; gpt2: GPT-2's own, on bytes "
                  "(its 50,257 symbols), beside the book's",
                  Choices{"book", "gpt2"});
    lesson.flag("--bytes", f.bytes,
                fmt::format("learn the book's byte-pair encoding on bytes, GPT-2's 256 byte symbols first: no text "
                            "is unknown (--vocab {} unless given)", bytes_vocab));
}

// Everything a learner gives, read and checked before anything prints.
struct Inputs {
    Corpus corpus;
    Reading reading;       // on characters, or on bytes (--bytes)
    Tokenizer characters;  // the first vocabulary: the text's characters, or the 256 bytes
    std::u32string sentence;  // empty with --tokenizer gpt2 when the book lacks a character of it
    std::string unread;       // then: that character
};

Inputs read_inputs(const Lesson& lesson, Flags& f) {
    if (f.text.size() > 4 * longest_sentence)  // before reading the corpus: refused at once
        throw InputError(fmt::format("--text: {} bytes, at most {} characters", f.text.size(), longest_sentence));
    if (f.bytes) {
        if (f.tokenizer != "book")
            throw InputError("--bytes: with --tokenizer book only (GPT-2's tokenizer reads bytes already)");
        if (!lesson.given("--vocab")) f.vocab = bytes_vocab;
        Tokenizer bytes = byte_characters();
        if (f.vocab < bytes.size())
            throw InputError(fmt::format("--vocab {}: fewer than the {} byte symbols of --bytes", f.vocab, bytes.size()));
        std::u32string sentence = code_points_of(f.text, "--text");
        return Inputs{load_corpus(f.corpus_path, fewest_characters), Reading{true}, std::move(bytes),
                      std::move(sentence), {}};
    }
    Corpus corpus = load_corpus(f.corpus_path, fewest_characters);
    Tokenizer characters = char_tokenizer(corpus.text);
    if (f.vocab < characters.size())
        throw InputError(fmt::format("--vocab {}: fewer than the text's {} characters", f.vocab, characters.size()));
    if (f.tokenizer == "book") {
        std::u32string sentence = checked_sentence("--text", f.text, characters, corpus.name);
        return Inputs{std::move(corpus), Reading{}, std::move(characters), std::move(sentence), {}};
    }
    // GPT-2 reads any UTF-8: its files and the text are checked now, before anything prints.
    gpt2_tokenizer();
    const std::u32string text = code_points_of(f.text, "--text");
    for (const char32_t c : text)
        if (std::none_of(characters.symbols.begin(), characters.symbols.end(),
                         [c](const std::u32string& symbol) { return symbol == std::u32string(1, c); }))
            return Inputs{std::move(corpus), Reading{}, std::move(characters), {}, visible_symbol(std::u32string(1, c))};
    return Inputs{std::move(corpus), Reading{}, std::move(characters), text, {}};
}

// The merges learned on the training text (timed), the first --vocab of them, and the sentence.
Learned learned_tokens(Lesson& lesson, const Flags& f, const Inputs& in, const std::u32string& training) {
    Learned l;
    const auto start = std::chrono::steady_clock::now();
    const std::vector<std::u32string> words = in.reading.words(training);
    l.largest = learn_bpe_on_words(in.characters, words, std::max(f.vocab, table_sizes.back()));
    l.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    l.tokenizer = first_symbols(l.largest, std::min(f.vocab, l.largest.size()));
    l.r = tokens_result(l.tokenizer, in.characters, words, in.reading.words(in.sentence), f.merges_shown);
    Labels merged, tokens;
    for (const Merge& m : l.tokenizer.merges)
        merged.push_back(visible_symbol(l.tokenizer.symbol(m.left) + l.tokenizer.symbol(m.right)));
    for (float id : l.r.text_ids) tokens.push_back(visible_symbol(l.tokenizer.symbol(int(id))));
    lesson.labels({{"merges", merged}, {"tokens", tokens}, {"merge_columns", {"left", "right", "count"}}});
    return l;
}


// What its page that computes reads beside it: the book and GPT-2's two files ("" before the
// set-up has installed them: the page then says so).
std::string page_files() {
    const std::string book = default_corpus_file(), gpt2 = gpt2_folder();
    const std::vector<CarriedFile> files{
        {book, book}, {gpt2 + "/encoder.json", gpt2 + "/encoder.json"}, {gpt2 + "/vocab.bpe", gpt2 + "/vocab.bpe"}};
    for (const CarriedFile& file : files)
        if (!std::filesystem::is_regular_file(file.path)) return {};
    return carried_files_script(files);
}

// --tokenizer gpt2: GPT-2's byte-level tokenizer on the text, beside the book's where it reads it,
// presented (the steps read this function's parts).
void present_gpt2(Lesson& lesson, const Flags& f, const Inputs& in, const std::u32string& training) {
    Part<ByteLevelRead>& gpt2 = lesson.part<ByteLevelRead>([&] { return read_with_gpt2(lesson, f.text); });
    std::optional<Part<Learned>*> book;  // only when the book reads every character of the text
    if (in.unread.empty())
        book = &lesson.part<Learned>([&] { return learned_tokens(lesson, f, in, training); });
    lesson.step("bytes", "GPT-2 reads bytes", [&] { show_gpt2_bytes(lesson, gpt2()); });
    lesson.step("pieces", "GPT-2's pattern: the pieces", [&] { show_gpt2_pieces(lesson, gpt2()); });
    lesson.step("merges", "The merges that build each token", [&] { show_gpt2_merges(lesson, gpt2()); });
    lesson.step("ids", "The ids, and back to the bytes", [&] { show_gpt2_ids(lesson, gpt2()); });
    lesson.step("beside-the-book", "The book's tokenizer beside GPT-2's", [&] {
        show_gpt2_beside_the_book(lesson, gpt2(),
                                  book ? std::optional<Tokenizer>((**book)().tokenizer) : std::nullopt, in.unread);
    });
    lesson.step("checks", "Self-checks", [&] { check_gpt2(lesson.checks(), gpt2()); });
    lesson.present();
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson;  // named and titled by chapter.toml
    Flags f;
    add_flags(lesson, f);
    lesson.page_file("trained_model.js", page_files);

    return lesson.run(argc, argv, [&] {
        const Inputs in = read_inputs(lesson, f);
        const std::u32string& sentence = in.sentence;
        const std::u32string training = in.corpus.training(), held_out = in.corpus.held_out();
        if (f.tokenizer == "gpt2") {
            present_gpt2(lesson, f, in, training);
            return;
        }
        Part<Learned>& learned = lesson.part<Learned>([&] { return learned_tokens(lesson, f, in, training); });
        lesson.step("characters", in.reading.bytes ? "The bytes" : "The characters",
                    [&] { show_characters(lesson, in.corpus, in.characters, in.reading); });
        lesson.step("words", "Words first", [&] { show_words(lesson, sentence, in.reading); });
        lesson.step("first-merges", "The first merges", [&] { show_first_merges(lesson, learned(), f.merges_shown, in.reading); });
        lesson.step("growing", "The vocabulary growing", [&] { show_growing(lesson, learned(), f.vocab, in.reading); });
        lesson.step("your-text", "Your text, merge by merge", [&] { show_split(lesson, learned(), sentence, in.reading); });
        lesson.step("sizes", "What a larger vocabulary buys", [&] { show_sizes(lesson, learned(), held_out, sentence, in.reading); });
        lesson.step("round-trip", "Back to text", [&] { show_round_trip(lesson, learned(), sentence, in.reading); });
        lesson.step("checks", "Self-checks", [&] {
            check_tokens(lesson.checks(), in.reading, learned().tokenizer, f.vocab, learned().r, sentence, held_out);
        });
        lesson.present();
    });
}
