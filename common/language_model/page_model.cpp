#include "common/language_model/page_model.hpp"

#include <filesystem>

#include "common/language_model/language_model.hpp"
#include "common/language_model/trained_gpt.hpp"
#include "common/lesson/lesson.hpp"
#include "common/numbers/input_error.hpp"
#include "common/output/carried_files.hpp"
#include "common/text/corpus.hpp"

std::string trained_model_script(const std::vector<Recipe>& recipes) {
    std::vector<CarriedFile> files;
    for (Recipe recipe : recipes) {
        Corpus corpus;
        try {
            corpus = checked_corpus(recipe);  // as the chapter reads it (its vocabulary settled)
        } catch (const InputError&) {
            return {};  // no text yet: ./tutorial run installs it
        }
        const std::string folder = gpt_folder_for(recipe_text_of(corpus, recipe));
        if (folder.empty() || !kept_model(corpus, recipe)) return {};
        const std::string trained = "/trained/" + std::filesystem::path(folder).filename().string();
        for (const auto& entry : std::filesystem::directory_iterator(folder))
            if (entry.is_regular_file())
                files.push_back({trained + "/" + entry.path().filename().string(), entry.path().string()});
    }
    files.push_back({default_corpus_file(), default_corpus_file()});
    return carried_files_script(files);
}

void carry_trained_model(Lesson& lesson, const std::vector<Recipe>& recipes) {
    lesson.page_file("trained_model.js", [recipes] { return trained_model_script(recipes); });
}
