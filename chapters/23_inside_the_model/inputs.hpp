// Chapter 23 · the lesson's inputs: the model's recipe (chapter 22's flags), the sentence read
// through the logit lens, the two sentences of the patching, the head shown in detail, and how
// much held-out text the measurements read.
#pragma once

#include <cstdint>
#include <string>

#include "chapters/23_inside_the_model/math.hpp"
#include "common/language_model/recipe_flags.hpp"

class Lesson;

struct Flags {
    Recipe recipe = default_recipe();
    std::string text = "Queequeg and Ahab. Queequeg said, and Ahab";  // --text: through the lens
    std::string clean = "Then Ahab went to the deck, and Ahab";       // --clean, --corrupt: patching
    std::string corrupt = "Then Pip went to the deck, and Ahab";
    std::size_t layer = 0, head = 0;  // --layer, --head: the head shown in detail
    Probe probe;
    bool all_held_out = false;        // --all-held-out: every window of the held-out text
};

void add_flags(Lesson& lesson, Flags& f);

// The sentences as the model's tokens: --text, and the patching pair --clean, --corrupt.
struct Sentences {
    Tokens text, clean, corrupt;
};

// Each refused in one line naming its flag: a character the text lacks, fewer than two tokens,
// more than the context; a pair of different lengths, the same tokens, or differing in the last
// token. Where a learner's text lacks a character of the default sentences, or the tokenizer cuts
// the default pair into different lengths, the text's first tokens stand in (for --corrupt with
// its first token changed).
Sentences checked_sentences(const Flags& f, const Lesson& lesson, const Corpus& corpus, const Tokenizer& tokenizer);
