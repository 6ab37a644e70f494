// The GPT that chapter 22 trains, kept on disk for later runs and chapters (a checkpoint,
// common/training/checkpoint.hpp): the parameters under nanoGPT's names, the tokenizer's file, the
// training's log. It is found by its recipe (the text, the tokenizer, the model's sizes, the
// training's settings) in trained_folder()/gpt-<hash of the recipe>/, and read back only when the
// code that trains it is the same (a hash of its sources, compiled in).
#pragma once

#include <string>
#include <vector>

#include "common/gpt/gpt_model.hpp"
#include "common/gpt/gpt_training.hpp"
#include "common/tokens/tokenizer.hpp"

struct TrainedGpt {
    Gpt<float> model;
    Tokenizer tokenizer;
    std::vector<LoggedLoss> log;  // the held-out loss before training and every few steps
    double seconds = 0;           // how long the training took
};

// The version of the training's code ("gpt" and 16 hex digits of a hash of its sources).
std::string gpt_code_version();

// The recipe as "key value" lines: what makes two trainings give the same model.
std::string gpt_recipe_text(const GptRecipe& recipe, const std::string& tokenizer_kind, const std::string& corpus,
                            std::size_t log_every);

// Where a model of this recipe is kept (empty: no folder to keep it in).
std::string gpt_folder_for(const std::string& recipe_text);

// Writes the checkpoint (throws std::runtime_error naming the folder when it cannot).
void save_trained_gpt(const std::string& dir, const std::string& recipe_text, TrainedGpt& trained);

// Reads it back; an InputError of one line naming the folder when it is missing, cut short, of
// another recipe or written by another version of the code.
// The vocabulary is the tokenizer's (config.vocab is not read).
TrainedGpt load_trained_gpt(const std::string& dir, const std::string& recipe_text, GptConfig config);
