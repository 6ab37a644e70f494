// What a page that computes (explorer/live/live_start.js) needs to put a sentence through a chapter's
// trained GPT in the browser: the files the native program would read, the kept checkpoint
// folder of each of the chapter's default recipes and the text they learned from, as one script beside the page
// (DIR/trained_model.js): window.tutorialTrainedModel = {"/trained/gpt-…/recipe.txt": base64, …}.
// The page's worker writes them into the WebAssembly program's files, under the same names
// (its TUTORIAL_TRAINED is /trained).
#pragma once

#include <string>
#include <vector>

#include "common/language_model/language_model.hpp"

// The script, or "" when a recipe's model has not been trained yet (./tutorial run 22 or 23 trains it).
std::string trained_model_script(const std::vector<Recipe>& recipes);

class Lesson;  // common/lesson/lesson.hpp
// The page of --html, when it computes, carries the script beside it (a chapter whose --text goes
// through the model: add_sentence_options, chapters 22 and 23), with the models of `recipes`.
void carry_trained_model(Lesson& lesson, const std::vector<Recipe>& recipes = {default_recipe()});
