#include "common/language_model/page_model.hpp"

#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "common/language_model/language_model.hpp"
#include "common/language_model/trained_gpt.hpp"
#include "common/lesson/lesson.hpp"
#include "common/machine/whole_file.hpp"
#include "common/numbers/input_error.hpp"
#include "common/text/corpus.hpp"

namespace {

std::string base64(const std::string& bytes) {
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
        unsigned v = 0;
        for (std::size_t k = 0; k < 3; ++k) v = v << 8 | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
        for (std::size_t k = 0; k < 4; ++k) out += k <= n ? digits[(v >> (18 - 6 * k)) & 63] : '=';
    }
    return out;
}

}  // namespace

std::string trained_model_script(const std::vector<Recipe>& recipes) {
    std::string entries;
    const auto add = [&](const std::string& name, const std::filesystem::path& file) {
        const std::optional<std::string> bytes = whole_file(file);
        if (!bytes) throw InputError(fmt::format("--html: cannot read {}", file.string()));
        entries += fmt::format("{}\n  {:?}: \"{}\"", entries.empty() ? "" : ",", name, base64(*bytes));
    };
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
            if (entry.is_regular_file()) add(trained + "/" + entry.path().filename().string(), entry.path());
    }
    add(default_corpus_file(), default_corpus_file());
    return "window.tutorialTrainedModel = {" + entries + "\n};\n";
}

void carry_trained_model(Lesson& lesson, const std::vector<Recipe>& recipes) {
    lesson.page_file("trained_model.js", [recipes] { return trained_model_script(recipes); });
}
