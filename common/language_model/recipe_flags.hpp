// The flags of a language model's recipe (common/language_model/language_model.hpp), each with its range,
// for every chapter that trains or reads chapter 22's GPT; and the refusal of a recipe out of reach.
#pragma once

#include "common/language_model/language_model.hpp"

class Lesson;  // common/lesson/lesson.hpp: the flags are declared in it

// --tokenizer, --vocab, --layers, --heads, --d-model, --context, --batch, --steps, --lr, --seed,
// --log-every, --corpus, --checkpoint, --train.
void add_recipe_flags(Lesson& lesson, Recipe& recipe);

// The recipe's text read and its vocabulary settled (checked_corpus), then, in one line naming
// the flag, --train with --checkpoint refused, and a recipe whose training would take more time
// or memory than this machine can give (an estimate from its sizes): before anything is computed.
Corpus checked_recipe(Recipe& recipe);

// --layer L (and --head H, when the chapter takes it) refused in one line when the recipe's model
// has no such block (or head).
void check_block(std::size_t layer, const GptConfig& config);
void check_head(std::size_t layer, std::size_t head, const GptConfig& config);
