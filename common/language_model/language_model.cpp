#include "common/language_model/language_model.hpp"

#include <unistd.h>

#include <chrono>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "common/display/print.hpp"
#include "common/display/time_text.hpp"
#include "common/gpt/gpt_copying.hpp"
#include "common/machine/file_lock.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/threads.hpp"
#include "common/tokens/tokenizer.hpp"
#include "common/training/training_memory.hpp"

namespace {

constexpr std::size_t characters_per_window = 16;  // characters a token may take, at most, in a short text

std::string corpus_identity(const Corpus& c, const std::string& path) {
    if (path.empty()) return c.name;
    // a hash of the text: the same file under another name is the same text
    return fmt::format("{:016x} ({} characters)", fnv1a(utf8_of(c.text)), c.text.size());
}

Tokenizer learn_tokenizer(const Corpus& corpus, const Recipe& r) {
    const Tokenizer characters = char_tokenizer(corpus.text);
    if (r.tokenizer == "char") return characters;
    return learn_bpe(characters, corpus.training(), r.bpe_vocab);
}

// Trains the fresh model by the recipe, then keeps it (when it can: else says why in not_kept).
void train_and_keep(LanguageModel& lm, const GptRecipe& recipe, std::size_t log_every,
                    const std::function<void(std::size_t, std::size_t, double)>& progress) {
    lm.trained.model = lm.fresh();
    const auto start = std::chrono::steady_clock::now();
    lm.trained.log = train_gpt(lm.trained.model, recipe, lm.train_ids(), lm.held_out_ids(), log_every,
                               [&](std::size_t step, double loss) { progress(step, recipe.steps, loss); },
                               [&](const Gpt<float>& m) { return copying_probe(m, lm.held_out_ids()); });
    lm.trained.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (lm.folder.empty()) {
        lm.not_kept = "there is no folder to keep it in";
        return;
    }
    try {
        save_trained_gpt(lm.folder, lm.recipe_text, lm.trained);
    } catch (const std::exception& e) {
        lm.not_kept = e.what();
    }
}

}  // namespace

Tokens model_tokens(const Tokenizer& tokenizer, const std::u32string& text) {
    const TokenIds ids = encode(tokenizer, text);
    return Tokens(ids.begin(), ids.end());
}

const BookTokens& LanguageModel::book() const {
    if (!book_) book_ = BookTokens{model_tokens(trained.tokenizer, corpus.training()), model_tokens(trained.tokenizer, corpus.held_out())};
    return *book_;
}

Gpt<float> LanguageModel::fresh() const { return fresh_gpt(trained.model.config, seed); }

MatrixList LanguageModel::matrices() const {
    MatrixList list;
    Gpt<float>& model = const_cast<Gpt<float>&>(trained.model);  // named_parameters only takes their addresses
    for (const NamedParameter<float>& p : named_parameters(model)) {
        const ListedMatrix m(p.name, *p.tensor, "trained", "", "");
        list.push_back(p.vector ? m.as_vector() : m);
    }
    list.push_back({"loss_log", loss_log, "step, training loss, held-out loss", "", "loss_columns"});
    return list;
}

Corpus checked_corpus(Recipe& r) {
    // The held-out tenth must hold a window of T + 1 tokens, which may be several characters each.
    Corpus corpus = load_corpus(r.corpus_path, 10 * characters_per_window * (r.gpt.config.context + 1));
    const std::size_t characters = char_tokenizer(corpus.text).size();
    if (r.tokenizer == "char") {
        r.gpt.config.vocab = characters;
    } else {
        if (r.bpe_vocab < characters)
            throw InputError(fmt::format("--vocab {}: fewer than the text's {} characters", r.bpe_vocab, characters));
        r.gpt.config.vocab = r.bpe_vocab;  // a text too small for so many merges gets fewer (prepare_language_model)
    }
    return corpus;
}

LanguageModel prepare_language_model(Corpus corpus, const Recipe& r, std::optional<TrainedGpt> given,
                                     const std::function<void(std::size_t, std::size_t, double)>& progress,
                                     std::optional<BookTokens> book) {
    LanguageModel lm;
    lm.corpus = std::move(corpus);
    if (book) lm.use_book(std::move(*book));
    lm.characters = char_tokenizer(lm.corpus.text).size();
    lm.recipe_text = recipe_text_of(lm.corpus, r);
    lm.folder = r.checkpoint.empty() ? gpt_folder_for(lm.recipe_text) : r.checkpoint;
    // Another run training this recipe now: wait for it, then read what it kept.
    std::optional<FileLock> lock;
    if (!given && !lm.folder.empty()) lock.emplace(lm.folder + ".lock");
    if (!given && !r.retrain) given = kept_model(lm.corpus, r);
    lm.read_back = given.has_value();
    lm.seed = r.gpt.seed;
    if (given) {
        lm.trained = std::move(*given);
    } else {
        lm.trained.tokenizer = learn_tokenizer(lm.corpus, r);
        GptRecipe recipe = r.gpt;
        recipe.config.vocab = lm.trained.tokenizer.size();  // a small text may run out of pairs to merge
        lm.trained.model.config = recipe.config;
        check_windows(lm.corpus, BookTokens{lm.train_ids(), lm.held_out_ids()}, recipe.config.context);
        train_and_keep(lm, recipe, r.log_every, progress);
    }
    lm.loss_log = Matrix::from_shape({lm.trained.log.size(), 3});
    for (std::size_t i = 0; i < lm.trained.log.size(); ++i) {
        const LoggedLoss& l = lm.trained.log[i];
        lm.loss_log(i, 0) = float(l.step), lm.loss_log(i, 1) = float(l.train), lm.loss_log(i, 2) = float(l.held_out);
    }
    return lm;
}

void check_windows(const Corpus& corpus, const BookTokens& book, std::size_t context) {
    const std::size_t window = context + 1;
    if (book.training.size() < window || book.held_out.size() < window)
        throw InputError(fmt::format("{}: {} training and {} held-out tokens; a context of {} needs at least {} of each",
                                     corpus.name, book.training.size(), book.held_out.size(), context, window));
}

Recipe default_recipe() {
    Recipe r;
    GptConfig& c = r.gpt.config;
    c.context = 64, c.layers = 2, c.heads = 4, c.d_model = 128;
    r.gpt.batch = 8, r.gpt.steps = 2400, r.gpt.learning_rate = 3e-3f;
    r.log_every = 200;
    return r;
}

LanguageModel default_language_model(const std::function<void(std::size_t, std::size_t, double)>& progress) {
    Recipe r = default_recipe();
    Corpus corpus = checked_corpus(r);
    return prepare_language_model(std::move(corpus), r, std::nullopt, progress);
}

std::function<void(std::size_t, std::size_t, double)> gpt_progress_bar(const std::string& what) {
    const bool terminal = isatty(STDERR_FILENO);
    const auto start = std::chrono::steady_clock::now();
    return [terminal, start, what](std::size_t step, std::size_t steps, double loss) {
#if defined(__EMSCRIPTEN__)
        // in the browser: a line a step, which the page's progress bar reads (explorer/live/live_progress.js)
        fmt::print(stderr, "training the GPT: step {}/{}  loss {}\n", step, steps, format_number(loss, 3));
        return;
#endif
        const std::size_t used = threads::count();
        const std::string training = fmt::format("training {} on {} thread{}", what, used, used == 1 ? "" : "s");
        if (!terminal) {
            if (step == 1) fmt::print(stderr, "{}: {} steps\n", training, steps);
            return;
        }
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double left = seconds / double(step) * double(steps - step);
        const std::size_t filled = 30 * step / steps;
        fmt::print(stderr, "\r{} [{}{}] step {}/{}  loss {}  {} left   {}", training, std::string(filled, '#'),
                   std::string(30 - filled, '.'), step, steps, format_number(loss, 3), time_text(left),
                   step == steps ? "\n" : "");
    };
}

std::optional<TrainedGpt> given_checkpoint(const Corpus& corpus, const Recipe& r) {
    if (r.checkpoint.empty()) return std::nullopt;
    try {
        return load_trained_gpt(r.checkpoint, recipe_text_of(corpus, r), r.gpt.config);
    } catch (const InputError& e) {
        throw InputError(std::string("--checkpoint ") + e.what());
    }
}

std::optional<TrainedGpt> kept_model(const Corpus& corpus, const Recipe& r) {
    const std::string recipe_text = recipe_text_of(corpus, r);
    const std::string folder = gpt_folder_for(recipe_text);
    if (folder.empty()) return std::nullopt;
    try {
        return load_trained_gpt(folder, recipe_text, r.gpt.config);
    } catch (const InputError&) {  // none kept yet, or by other code, or damaged: it is trained again
        return std::nullopt;
    }
}

Tokenizer tokenizer_of(const Corpus& corpus, const Recipe& r) {
    const std::optional<TrainedGpt> kept = kept_model(corpus, r);
    return kept ? kept->tokenizer : learn_tokenizer(corpus, r);
}

std::string recipe_text_of(const Corpus& corpus, const Recipe& r) {
    return gpt_recipe_text(r.gpt, r.tokenizer, corpus_identity(corpus, r.corpus_path), r.log_every);
}
