#include "chapters/23_inside_the_model/inputs.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/language_model/page_model.hpp"
#include "common/lesson/lesson.hpp"
#include "common/numbers/input_error.hpp"
#include "common/text/token_text.hpp"

Recipe circuit_recipe() {
    Recipe r = default_recipe();
    r.gpt.config.d_model = 64, r.gpt.config.heads = 2;
    r.gpt.steps = 6000, r.gpt.repeats = circuit_repeats;
    return r;
}

Recipe control_recipe(const Recipe& r) {
    Recipe control = r;
    control.gpt.repeats = r.gpt.repeats > 0.0 ? 0.0 : circuit_repeats;
    control.checkpoint.clear();
    return control;
}

void add_flags(Lesson& lesson, Flags& f) {
    add_recipe_flags(lesson, f.recipe);
    lesson.option("--text", f.text, "the sentence read through the logit lens (two tokens at least)");
    carry_trained_model(lesson, {circuit_recipe(), control_recipe(circuit_recipe())});  // the page reads both models
    lesson.option("--clean", f.clean, "patching: the sentence whose heads are copied");
    lesson.option("--corrupt", f.corrupt, "patching: the sentence they are copied into (as many tokens)");
    // Without them, the head shown is the one whose removal costs most (step 3).
    lesson.option("--layer", f.layer, "the block of the head shown in detail (0 with --head alone; neither: the costliest head's)",
                  Range{0, 11})
        .without_default();
    lesson.option("--head", f.head, "the head shown in detail (0 with --layer alone; neither: the one whose removal costs most)",
                  Range{0, 15})
        .without_default();
    lesson.option("--windows", f.probe.windows, "held-out windows of T tokens measured, spread evenly",
                  Range{1, 100000});
    lesson.flag("--all-held-out", f.all_held_out, "measure every window of the held-out text");
    lesson.option("--sequences", f.probe.sequences, "random sequences, each repeated, for the induction score",
                  Range{1, 1000});
    lesson.option("--passages", f.probe.passages, "held-out passages, each repeated, for Olsson et al.'s test",
                  Range{1, 1000});
    lesson.option("--probe-seed", f.probe.seed, "seed of the random sequences", Range{0, 999999999});
}

namespace {

// The sentence's tokens, refused in one line when fewer than two or more than the context.
Tokens sentence_tokens(const std::string& flag, const std::string& text, const Tokenizer& tokenizer,
                       const Tokenizer& characters, const std::string& corpus_name, std::size_t context) {
    const Tokens ids = model_tokens(tokenizer, checked_sentence(flag, text, characters, corpus_name));
    if (ids.size() < 2)
        throw InputError(fmt::format("{}: one token; a head chooses among the tokens before it: two at least", flag));
    if (ids.size() > context)
        throw InputError(fmt::format("{}: {} tokens, more than the {} the model reads at once (--context)", flag,
                                     ids.size(), context));
    return ids;
}

// The text's first tokens, at most 16 and the context, as text.
std::string opening_of(const Corpus& corpus, const Tokenizer& tokenizer, std::size_t context) {
    const Tokens start = model_tokens(tokenizer, corpus.text.substr(0, 2000));
    const std::size_t count = std::min<std::size_t>({context, 16, start.size()});
    return utf8_of(decode(tokenizer, TokenIds(start.begin(), start.begin() + std::ptrdiff_t(count))));
}

}  // namespace

Sentences checked_sentences(const Flags& f, const Lesson& lesson, const Corpus& corpus, const Tokenizer& tokenizer) {
    const std::size_t T = f.recipe.gpt.config.context;
    const Tokenizer characters = char_tokenizer(corpus.text);
    const auto known = [&](const std::string& text, const std::string& flag) {
        return all_known(code_points_of(text, flag), characters);
    };
    const auto length = [&](const std::string& text) { return model_tokens(tokenizer, code_points_of(text, "")).size(); };
    std::string text = f.text, clean = f.clean, corrupt = f.corrupt;
    if (!lesson.given("--text") && !known(text, "--text")) text = opening_of(corpus, tokenizer, T);
    const bool own_pair = !lesson.given("--clean") && !lesson.given("--corrupt") &&
                          (!known(clean, "--clean") || !known(corrupt, "--corrupt") || length(clean) != length(corrupt));
    if (own_pair) clean = corrupt = opening_of(corpus, tokenizer, T);
    Sentences s{sentence_tokens("--text", text, tokenizer, characters, corpus.name, T),
                sentence_tokens("--clean", clean, tokenizer, characters, corpus.name, T),
                sentence_tokens("--corrupt", corrupt, tokenizer, characters, corpus.name, T)};
    if (own_pair) s.corrupt[0] = (s.corrupt[0] + 1) % tokenizer.size();
    if (s.corrupt.size() != s.clean.size()) {
        const auto shown = [&](const Tokens& ids) { return bars(tokenizer, TokenIds(ids.begin(), ids.end())); };
        throw InputError(fmt::format("--corrupt: {} tokens ({}), --clean {} ({}): patching copies a head's output "
                                     "token by token (as many tokens)",
                                     s.corrupt.size(), shown(s.corrupt), s.clean.size(), shown(s.clean)));
    }
    if (s.corrupt == s.clean) throw InputError("--corrupt: the same tokens as --clean; patching needs a difference");
    if (s.corrupt.back() != s.clean.back())
        throw InputError("--corrupt: its last token differs from --clean's; the two should differ before it "
                         "(the prediction after the last token is what patching reads)");
    return s;
}
