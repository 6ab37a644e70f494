// What a page that computes (explorer/live/live_start.js) reads beside it: the files the native
// program would read (a trained model, the book, GPT-2's vocabulary), as one script
// (DIR/trained_model.js, written by Lesson::page_file):
//
//   window.tutorialTrainedModel = {"/trained/gpt-…/recipe.txt": "<base64>", "…/moby_dick.txt": …};
//
// The page's worker writes each into the WebAssembly program's files under its name (the
// program's paths are compiled in from the same source folder, so a file's name is its path).
#pragma once

#include <string>
#include <utility>
#include <vector>

// One file to carry: its name in the program's files, and where it is on this disk.
struct CarriedFile {
    std::string name, path;
};

// The script of the files, in order. InputError naming a file that cannot be read.
std::string carried_files_script(const std::vector<CarriedFile>& files);
