// The language model chapter 22 trains, ready for any lesson: the corpus read
// (common/text/corpus.hpp), its tokenizer learned (chapter 21's), the model trained by the
// recipe, or read back from the checkpoint an earlier run kept (common/language_model/trained_gpt.hpp).
// A chapter that shows a learner's sentence through the trained model asks for the default one:
//
//   const LanguageModel lm = default_language_model(gpt_progress_bar());
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "common/gpt/gpt_training.hpp"
#include "common/language_model/trained_gpt.hpp"
#include "common/numbers/matrix_list.hpp"
#include "common/text/corpus.hpp"

struct Recipe {
    GptRecipe gpt;                  // sizes (vocab: the tokenizer's), batch, steps, lr, seed
    std::string tokenizer = "bpe";  // bpe or char
    std::size_t bpe_vocab = 256;    // symbols of the BPE vocabulary, characters included
    std::size_t log_every = 200;    // steps between held-out measurements
    std::string corpus_path;        // empty: Moby-Dick
    std::string checkpoint;         // --checkpoint DIR: read this one, train nothing
    bool retrain = false;           // --train: train even when a checkpoint is kept
};

// The book as the model's tokens: the first 90 % of its characters, and the rest.
struct BookTokens {
    Tokens training, held_out;
};

struct LanguageModel {
    Corpus corpus;
    std::size_t characters = 0;       // distinct characters of the text
    TrainedGpt trained;               // model, tokenizer, log, seconds
    std::uint64_t seed = 0;           // the recipe's: fresh() draws the model before training again
    std::string recipe_text;          // what the checkpoint is kept under
    std::string folder;               // where it was read from or written to (empty: none)
    bool read_back = false;           // true: an earlier run trained it
    std::string not_kept;             // why it could not be written, when it could not
    Matrix loss_log;                  // (logged × 3) step, training loss, held-out loss

    // The trained parameters under nanoGPT's names (transformer.wte.weight, …; the 1-D ones
    // written as shape (n,)), then loss_log.
    MatrixList matrices() const;

    // The book as tokens, tokenized when first asked for: a model read back reads a sentence
    // without them (the whole book is a tenth of a second in the browser).
    const Tokens& train_ids() const { return book().training; }
    const Tokens& held_out_ids() const { return book().held_out; }
    // The model before training, drawn again from the recipe's seed.
    Gpt<float> fresh() const;
    // The book as this model's tokens, when a lesson has them already (read with its tokenizer).
    void use_book(BookTokens tokens) { book_ = std::move(tokens); }

private:
    const BookTokens& book() const;
    mutable std::optional<BookTokens> book_;
};

// Chapter 22's default: what every chapter's --text reads (docs/ch22_small_gpt.md says why).
Recipe default_recipe();

// Settles the vocabulary and checks the recipe against the text, before anything prints.
Corpus checked_corpus(Recipe& recipe);

// Everything above: the model `given` (read from --checkpoint), else the one kept for this recipe,
// else trained now (`progress(step, steps, loss)` while it trains) and kept. `book`: the text as
// the tokens of this recipe's tokenizer, when the lesson has them already (else tokenized here).
LanguageModel prepare_language_model(Corpus corpus, const Recipe& recipe, std::optional<TrainedGpt> given,
                                     const std::function<void(std::size_t, std::size_t, double)>& progress,
                                     std::optional<BookTokens> book = std::nullopt);

// Refuses, in one line naming the text, a book too short for a window of context + 1 tokens in
// its training part and in its held-out part.
void check_windows(const Corpus& corpus, const BookTokens& book, std::size_t context);

// The model of --checkpoint DIR, read now: a bad one is refused in one line naming --checkpoint,
// before any output. Nothing when the recipe names no checkpoint.
std::optional<TrainedGpt> given_checkpoint(const Corpus& corpus, const Recipe& recipe);

// The model of this recipe that an earlier run kept, when there is one whole (it trains nothing).
std::optional<TrainedGpt> kept_model(const Corpus& corpus, const Recipe& recipe);

// The tokenizer a model of this recipe reads with: the kept model's, else learned now.
Tokenizer tokenizer_of(const Corpus& corpus, const Recipe& recipe);

// What a model of this recipe on this text is kept under (common/language_model/trained_gpt.hpp).
std::string recipe_text_of(const Corpus& corpus, const Recipe& recipe);

// The default recipe's model on Moby-Dick.
LanguageModel default_language_model(const std::function<void(std::size_t, std::size_t, double)>& progress);

// On a terminal, one line rewritten in place (step, loss, time left); elsewhere one line as the
// training starts ("training WHAT on 2 threads: 2400 steps"). A model read back trains nothing
// and says nothing.
std::function<void(std::size_t, std::size_t, double)> gpt_progress_bar(const std::string& what = "the GPT");

// The ids of a text (code points) as the model's tokens.
Tokens model_tokens(const Tokenizer& tokenizer, const std::u32string& text);
