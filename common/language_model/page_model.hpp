// What a page that computes (explorer/live_start.js) needs to put a sentence through chapter 22's
// trained GPT in the browser: the files the native program would read, the default recipe's
// kept checkpoint folder and the text it learned from, as one script beside the page
// (DIR/trained_model.js): window.tutorialTrainedModel = {"/trained/gpt-…/recipe.txt": base64, …}.
// The page's worker writes them into the WebAssembly program's files, under the same names
// (its TUTORIAL_TRAINED is /trained).
#pragma once

#include <string>

// The script, or "" when the default model has not been trained yet (./tutorial run 22 trains it).
std::string trained_model_script();

class Lesson;  // common/lesson/lesson.hpp
// The page of --html, when it computes, carries the script beside it (a chapter whose --text goes
// through the model: add_sentence_options, chapters 22 and 23).
void carry_trained_model(Lesson& lesson);
