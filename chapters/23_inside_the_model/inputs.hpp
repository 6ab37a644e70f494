// Chapter 23 · the lesson's inputs: the model's recipe (chapter 22's flags), the sentence read
// through the logit lens, the two sentences of the patching, the head shown in detail, and how
// much held-out text the measurements read.
#pragma once

#include <cstdint>
#include <string>

#include "chapters/23_inside_the_model/math.hpp"
#include "common/language_model/recipe_flags.hpp"

class Lesson;

// The recipe of this chapter's model: chapter 22's GPT, 2 blocks of 2 heads, d_model 64, 6,000
// steps, every training window given a repeated passage (--repeats 1): the smallest share and
// budget measured to form an induction head on the book. Its control is control_recipe.
constexpr double circuit_repeats = 1.0;
Recipe circuit_recipe();
// The same recipe on the other book: the plain book for a recipe with repeats, and
// circuit_repeats for one without; never a checkpoint (it is trained or read back as kept).
Recipe control_recipe(const Recipe& r);

struct Flags {
    Recipe recipe = circuit_recipe();
    std::string text = "Queequeg and Ahab. Queequeg said, and Ahab";  // --text: through the lens
    std::string clean = "the whale saw Ahab. the whale saw";   // --clean, --corrupt: patching
    std::string corrupt = "the whale saw Pip. the whale saw";
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
