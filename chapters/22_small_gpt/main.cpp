// Chapter 22 · A small GPT learns Moby-Dick
//
// The lesson: a GPT of nanoGPT's architecture, its forward and backward passes written in
// common/gpt, trained here on the first 90 % of Moby-Dick's tokens (chapter 21's byte-pair
// encoding). The steps show the text and its tokens, the model's parameters under nanoGPT's
// names, text sampled before training, the loss falling from ln V, text sampled after, and the
// learner's sentence read by the trained model: every head's attention, where each head looks
// most, and the five most likely next tokens after each token; then the self-checks.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/22_small_gpt/checks.hpp"
#include "chapters/22_small_gpt/inputs.hpp"
#include "chapters/22_small_gpt/math.hpp"
#include "chapters/22_small_gpt/writing.hpp"
#include "common/display/text_table.hpp"
#include "common/gpt/gpt_sampling.hpp"
#include "common/learning/adamw.hpp"
#include "common/lesson/lesson.hpp"
#include "common/machine/machine_memory.hpp"
#include "common/numbers/input_error.hpp"
#include "common/text/token_text.hpp"

namespace {

std::string three(double x) { return format_number(x, 3); }

// The text's first characters, up to the end of its first line, at most `most` (at least one).
std::string opening_of(const Corpus& corpus, std::size_t most) {
    const std::size_t line = corpus.text.find(U'\n');
    std::u32string start = corpus.text.substr(0, std::min(line == 0 ? 1 : line, most));
    return utf8_of(start);
}

std::string sample_text(const Tokenizer& t, const Gpt<float>& model, const Flags& f, const std::u32string& prompt) {
    const Tokens ids = model_tokens(t, prompt);
    const Tokens more = generate(model, ids, f.sample_tokens, f.temperature, f.greedy ? 1 : f.top_k, f.sample_seed, f.top_p);
    return utf8_of(prompt) + "▸" + utf8_of(decode(t, TokenIds(more.begin(), more.end())));
}

// The book as the model reads it, without the model: the text and model steps, and the untrained
// samples, need no training.
struct Book {
    Tokenizer tokenizer;  // the given or kept model's, else learned now (as training would)
    std::size_t characters = 0;  // distinct characters of the text
    BookTokens tokens;           // the first 90 % of the text, and the rest
    MatrixList matrices() const { return {}; }
};

Book read_book(const Corpus& corpus, const Recipe& r, const std::optional<TrainedGpt>& given) {
    Book b{given ? given->tokenizer : tokenizer_of(corpus, r), char_tokenizer(corpus.text).size(), {}};
    b.tokens = {model_tokens(b.tokenizer, corpus.training()), model_tokens(b.tokenizer, corpus.held_out())};
    check_windows(corpus, b.tokens, r.gpt.config.context);
    return b;
}

void show_text(Lesson& lesson, const Corpus& corpus, const Book& book, const Recipe& r) {
    const Tokenizer& t = book.tokenizer;
    lesson.say(fmt::format(
        "The text: {}, {} characters, {} distinct. The first 90 % train ({} characters);\n"
        "the last 10 % are held out ({}): the model never learns from them.",
        corpus.name, with_commas(corpus.text.size()), book.characters, with_commas(corpus.training_size()),
        with_commas(corpus.text.size() - corpus.training_size())));
    lesson.say(fmt::format(
        "Tokens: {}, V = {} symbols{}.\n"
        "Training text: {} tokens ({} characters a token). Held-out text: {} tokens.",
        r.tokenizer == "bpe" ? "chapter 21's byte-pair encoding" : "single characters", t.size(),
        r.tokenizer == "bpe" ? fmt::format(" ({} characters and {} merges)", t.characters(), t.merges.size()) : "",
        with_commas(book.tokens.training.size()),
        format_number(double(corpus.training_size()) / double(book.tokens.training.size()), 2),
        with_commas(book.tokens.held_out.size())));
    lesson.say(fmt::format("A model that knows nothing gives every token 1/V: its loss is ln V = {} nats a token,\n"
                           "where the training curve starts.",
                           three(std::log(double(t.size())))));
}

void show_model(Lesson& lesson, const Gpt<float>& fresh) {
    const GptConfig& c = fresh.config;
    lesson.say(fmt::format(
        "nanoGPT's GPT (GPT-2's architecture): V = {}, context T = {}, L = {} blocks of H = {}\n"
        "heads, d_model = {} (d_h = {}). Each block: x += attn(ln_1(x)), x += mlp(ln_2(x)); the\n"
        "output layer is wte itself (tied). {} parameters, under PyTorch's names (--dump\n"
        "writes each as <name>.npy; the doc loads them into PyTorch):",
        c.vocab, c.context, c.layers, c.heads, c.d_model, c.d_model / c.heads, with_commas(parameter_count(c))));
    std::vector<TextRow> rows;
    Gpt<float> shapes = fresh;  // named_parameters takes the addresses of its tensors
    for (const NamedParameter<float>& p : named_parameters(shapes)) {
        if (p.name.rfind("transformer.h.", 0) == 0 && p.name.rfind("transformer.h.0.", 0) != 0) continue;
        const std::string shape = p.vector ? fmt::format("({})", p.tensor->size())
                                           : fmt::format("({} × {})", p.tensor->shape(0), p.tensor->shape(1));
        rows.push_back({p.name, shape, std::to_string(p.tensor->size())});
    }
    lesson.table({"parameter", "shape", "numbers"}, rows, 32);
    if (c.layers == 2) lesson.say_under("(block 0 shown; block 1 has the same shapes)");
    if (c.layers > 2) lesson.say_under(fmt::format("(block 0 shown; blocks 1 … {} have the same shapes)", c.layers - 1));
}

void show_sample(Lesson& lesson, const std::string& when, const std::string& sample) {
    lesson.say(fmt::format("{} (prompt ▸ sampled):\n{}", when, sample));
}

void show_training(Lesson& lesson, const LanguageModel& lm, const Recipe& r) {
    const std::vector<LoggedLoss>& log = lm.trained.log;
    const GptRecipe& g = r.gpt;
    // A run shorter than the warmup never reaches the peak rate: the schedule says where it stopped.
    const std::string schedule =
        g.steps > g.warmup
            ? fmt::format("learning rate {} after {} warmup steps, cosine to a tenth",
                          format_number(g.learning_rate, 4), g.warmup)
            : fmt::format("the learning rate rises toward {} over {} warmup steps,\nand --steps {} stops it at {}",
                          format_number(g.learning_rate, 4), g.warmup, g.steps,
                          format_number(scheduled_learning_rate(g.steps - 1, g.learning_rate, g.warmup, g.steps,
                                                                g.learning_rate / 10),
                                        4));
    lesson.say(fmt::format(
        "AdamW (β₁ 0.9, β₂ 0.99, weight decay 0.1 on matrices), gradient norm clipped at 1, {} windows\n"
        "of {} tokens a step; {}.\n"
        "The trained model is kept as a checkpoint (~/.cache/attention-step-by-step/trained/gpt-…/):\n"
        "a later run of the same recipe reads it back instead of training; --train trains it again.",
        g.batch, g.config.context, schedule));
    std::vector<TextRow> rows;
    std::vector<double> steps, train, held;
    for (const LoggedLoss& l : log) {
        rows.push_back({std::to_string(l.step), three(l.train), three(l.held_out)});
        steps.push_back(double(l.step)), train.push_back(l.train), held.push_back(l.held_out);
    }
    lesson.table({"step", "training loss", "held-out loss"}, rows, 12);
    const double characters_a_token = double(lm.corpus.held_out().size()) / double(lm.held_out_ids().size());
    lesson.say_under(fmt::format("(training loss: the mean of the batches since the row before; held-out loss: {} windows\n"
                                 "of held-out text. {} nats a token is about {} nats a character: a held-out token is {}\n"
                                 "characters)",
                                 std::min(held_out_windows, (lm.held_out_ids().size() - 1) / r.gpt.config.context),
                                 three(log.back().held_out), format_number(log.back().held_out / characters_a_token, 2),
                                 format_number(characters_a_token, 2)));
    ChartOptions chart;
    chart.width = 60, chart.height = 10, chart.label_width = 7;
    chart.y_text = [](double v) { return format_number(v, 2); };
    chart.ticks = {{0.0, "step 0"}, {double(r.gpt.steps), fmt::format("step {}", r.gpt.steps)}};
    lesson.chart("loss", "Cross-entropy, nats a token", {"step", false}, {"loss (nats)", false},
                 {{"training (batches)", steps, train, "t"}, {"held out", steps, held, "h"}}, chart);
}

void show_sentence(Lesson& lesson, const LanguageModel& lm, const SentenceRead& s, std::size_t layer) {
    const Tokenizer& t = lm.trained.tokenizer;
    lesson.say(fmt::format("Your sentence as tokens: {}  (ids {})", bars(t, TokenIds(s.ids.begin(), s.ids.end())),
                           fmt::join(s.ids, " ")));
    lesson.say(fmt::format(
        "Layer {}'s heads on it (row: a query token; column: a key; each row sums to 1, and a\n"
        "token sees only itself and what came before). --layer shows another block's; --svg and\n"
        "--html draw all {} heads.",
        layer, s.weights.size()));
    for (std::size_t m = 0; m < s.weights.size(); ++m) {
        if (m / s.heads == layer) lesson.heat_map(s.weights[m], Style().decimals(2).svg());
        else lesson.draw(s.weights[m]);
    }
}

void show_model_view(Lesson& lesson, const LanguageModel& lm, const SentenceRead& s) {
    const Tokenizer& t = lm.trained.tokenizer;
    const std::size_t n = s.ids.size();
    TextRow header{"head"};
    for (std::size_t i = 0; i < n; ++i) header.push_back(visible_symbol(t.symbol(int(s.ids[i]))));
    std::vector<TextRow> rows;
    for (std::size_t m = 0; m < s.weights.size(); ++m) {
        TextRow row{fmt::format("L{} H{}", m / s.heads, m % s.heads)};
        for (std::size_t i = 0; i < n; ++i) {
            row.push_back(visible_symbol(t.symbol(int(s.ids[std::size_t(s.looks_most(m, i))]))));
        }
        rows.push_back(row);
    }
    lesson.say("Every layer and head at once (a model view, as BertViz draws one): under each query\n"
               "token, the key token it attends to most. The heat maps above hold the weights.");
    lesson.table(header, rows, 64);
}

void show_predictions(Lesson& lesson, const LanguageModel& lm, const SentenceRead& s) {
    const Tokenizer& t = lm.trained.tokenizer;
    std::vector<TextRow> rows;
    for (std::size_t i = 0; i < s.ids.size(); ++i) {
        TextRow row{visible_symbol(t.symbol(int(s.ids[i])))};
        for (std::size_t j = 0; j < s.top_ids.shape(1); ++j)
            row.push_back(fmt::format("{} {}", visible_symbol(t.symbol(int(s.top_ids(i, j)))),
                                      format_number(s.top_probabilities(i, j), 2)));
        rows.push_back(row);
    }
    lesson.say("After each token, the five tokens the model finds most likely next, with p = softmax(logits):");
    lesson.table({"after", "1st", "2nd", "3rd", "4th", "5th"}, rows, 64);
}

// Everything a learner gives, read and checked before anything prints or trains.
struct Inputs {
    Corpus corpus;
    std::optional<TrainedGpt> given;  // --checkpoint DIR
    std::u32string sentence, prompt;  // --text, --prompt
};

Inputs read_inputs(const Lesson& lesson, Flags& f) {
    Recipe& r = f.recipe;
    Inputs in{checked_recipe(r), std::nullopt, {}, {}};
    check_block(f.layer, r.gpt.config);
    const Tokenizer characters = char_tokenizer(in.corpus.text);
    // Your own text may lack a character of the default sentence or prompt: then its own start
    // stands in for them (a sentence or prompt you give is checked as it is).
    const std::size_t T = r.gpt.config.context;
    if (!lesson.given("--text") && !all_known(code_points_of(f.text, "--text"), characters)) f.text = opening_of(in.corpus, T);
    if (!lesson.given("--prompt") && !all_known(code_points_of(f.prompt, "--prompt"), characters)) f.prompt = opening_of(in.corpus, 12);
    in.sentence = checked_sentence("--text", f.text, characters, in.corpus.name);
    in.prompt = checked_sentence("--prompt", f.prompt, characters, in.corpus.name);
    in.given = given_checkpoint(in.corpus, r);  // read now, so that a bad one is refused before any output
    if (in.sentence.size() > T) {  // it may be more tokens than the model reads at once
        const std::size_t tokens = model_tokens(in.given ? in.given->tokenizer : tokenizer_of(in.corpus, r), in.sentence).size();
        if (tokens > T)
            throw InputError(fmt::format("--text: {} tokens, more than the {} the model reads at once (--context)", tokens, T));
    }
    if (f.generate > 0) {  // the cache holds one context: the window does not slide here
        const std::size_t prompt = model_tokens(in.given ? in.given->tokenizer : tokenizer_of(in.corpus, r), in.prompt).size();
        if (prompt + f.generate > T)
            throw InputError(fmt::format("--generate {}: the prompt's {} tokens and {} more pass the context of {} (at "
                                         "most {} here; the window does not slide)",
                                         f.generate, prompt, f.generate, T, T > prompt ? T - prompt : 0));
    }
    return in;
}

// The sentence through the trained model, its tokens and every head named for the pages.
SentenceRead read_labelled(Lesson& lesson, const LanguageModel& m, const std::u32string& sentence) {
    const Tokens ids = model_tokens(m.trained.tokenizer, sentence);
    SentenceRead s = read_sentence(m.trained.model, ids);
    Labels tokens;
    for (std::size_t id : ids) tokens.push_back(visible_symbol(m.trained.tokenizer.symbol(int(id))));
    Labels heads;
    const std::size_t H = m.trained.model.config.heads;
    for (std::size_t k = 0; k < s.weights.size(); ++k) heads.push_back(fmt::format("L{}H{}", k / H, k % H));
    lesson.labels({{"tokens", tokens}, {"heads", heads}});
    return s;
}

// The model before training, drawn from the recipe's seed, and what it writes after the prompt.
struct Untrained {
    Gpt<float> model;
    std::string sample;
    MatrixList matrices() const { return {}; }
};

// The model as it starts (the vocabulary the book's, which a small text may leave below the
// recipe's: it runs out of pairs to merge), and what it writes after the prompt.
Untrained untrained_model(const Book& book, const Recipe& r, const Flags& f, const std::u32string& prompt) {
    GptConfig c = r.gpt.config;
    c.vocab = book.tokenizer.size();
    Gpt<float> model = fresh_gpt(c, r.gpt.seed);
    std::string sample = sample_text(book.tokenizer, model, f, prompt);
    return Untrained{std::move(model), std::move(sample)};
}

// What the trained model writes after the prompt.
struct Sample {
    std::string text;
    MatrixList matrices() const { return {}; }
};

std::string sampling_of(const Flags& f) {
    if (f.greedy) return "Written after training, the most likely token each time (--greedy)";
    return fmt::format("Sampled after training, τ = {}, {}{}", format_number(f.temperature, 2),
                       f.top_k == 0 ? std::string("among every token (--top-k 0)") : fmt::format("top k = {}", f.top_k),
                       f.top_p < 1.0 ? fmt::format(", top p = {}", format_number(f.top_p, 3)) : std::string());
}

}  // namespace

int main(int argc, char** argv) {
    reuse_training_buffers();
    Lesson lesson;  // named and titled by chapter.toml
    Flags f;
    add_flags(lesson, f);
    return lesson.run(argc, argv, [&] {
        Inputs in = read_inputs(lesson, f);
        const Recipe& r = f.recipe;
        Part<Book>& book = lesson.part<Book>([&] { return read_book(in.corpus, r, in.given); });
        Part<Untrained>& untrained = lesson.part<Untrained>([&] { return untrained_model(book(), r, f, in.prompt); });
        Part<LanguageModel>& lm = lesson.part<LanguageModel>([&] {
            lesson.labels("loss_columns", {"step", "training", "held_out"});
            return prepare_language_model(in.corpus, r, in.given, gpt_progress_bar(), book().tokens);
        });
        Part<SentenceRead>& read = lesson.part<SentenceRead>([&] { return read_labelled(lesson, lm(), in.sentence); });
        Part<Sample>& after = lesson.part<Sample>([&] { return Sample{sample_text(lm().trained.tokenizer, lm().trained.model, f, in.prompt)}; });
        lesson.step("text", "The text and its tokens", [&] { show_text(lesson, in.corpus, book(), r); });
        lesson.step("model", "The model: nanoGPT's GPT", [&] { show_model(lesson, untrained().model); });
        lesson.step("before", "Text from the untrained model",
                    [&] { show_sample(lesson, "Sampled from the model before training", untrained().sample); });
        lesson.step("training", "Training: the loss from ln V down", [&] { show_training(lesson, lm(), r); });
        lesson.step("after", "Text from the trained model", [&] { show_sample(lesson, sampling_of(f), after().text); });
        std::optional<Part<Writing>*> writing;  // --generate N: the step, and its checks
        if (f.generate > 0) {
            writing = &lesson.part<Writing>([&] { return write_labelled(lesson, lm(), f, model_tokens(lm().trained.tokenizer, in.prompt)); });
            lesson.step("writing", "One token at a time", [&] { show_writing(lesson, lm(), f, (**writing)()); });
        }
        lesson.step("your-sentence", "Your sentence: every head's attention",
                    [&] { show_sentence(lesson, lm(), read(), f.layer); });
        lesson.step("model-view", "Where each head looks", [&] { show_model_view(lesson, lm(), read()); });
        lesson.step("next-tokens", "What comes next, after each token",
                    [&] { show_predictions(lesson, lm(), read()); });
        lesson.step("checks", "Self-checks", [&] {
            check_language_model(lesson.checks(), lm(), read(), in.sentence);
            if (writing) check_writing(lesson.checks(), lm(), (**writing)(), f.temperature, f.greedy ? 1 : f.top_k, f.top_p, f.sample_seed);
        });
        lesson.present();
    });
}
