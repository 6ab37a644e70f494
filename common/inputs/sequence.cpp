#include "common/inputs/sequence.hpp"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/display/elide.hpp"
#include "common/lesson/lesson.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/random_embeddings.hpp"

std::string SequenceSource::embeddings_said() const {
    if (is_default()) return "The embeddings are random (seeded): a repeated word has the same row.";
    if (text.empty()) return "The embeddings are the rows of " + input + ".";
    return "The embeddings are those chapter 22's model learned (its wte).";
}

std::string data_path(const std::string& name) { return std::string(TUTORIAL_DATA_DIR) + "/" + name; }

LabelledMatrix read_data_file(const std::string& name) { return read_labelled_csv(data_path(name)); }

Sequence embed_sentence(const LabelledMatrix& table, const std::string& sentence) {
    Sequence sequence;
    sequence.dimensions = table.columns;
    std::istringstream words(sentence);
    std::string word;
    std::vector<std::size_t> row_of_word;
    while (words >> word) {
        const auto found = std::find(table.rows.begin(), table.rows.end(), word);
        if (found == table.rows.end())
            throw InputError(fmt::format("{}: has no row for the token '{}'", table.source, word));
        sequence.tokens.push_back(word);
        row_of_word.push_back(static_cast<std::size_t>(found - table.rows.begin()));
    }
    if (sequence.tokens.empty()) throw InputError("the sentence has no words");
    sequence.X = Matrix::from_shape({row_of_word.size(), table.columns.size()});
    for (std::size_t i = 0; i < row_of_word.size(); ++i)
        for (std::size_t d = 0; d < table.columns.size(); ++d) sequence.X(i, d) = table.values(row_of_word[i], d);
    return sequence;
}

Sequence load_sequence(const std::string& input_path, const std::string& default_sentence,
                       std::uint64_t square_matrices) {
    if (input_path.empty()) return embed_sentence(read_data_file("embeddings.csv"), default_sentence);
    LabelledMatrix table = read_labelled_csv(input_path, square_matrices);
    return Sequence{table.rows, table.columns, std::move(table.values)};
}

Sequence random_or_input_sequence(const std::string& input_path, const std::string& default_sentence,
                                  std::size_t d_model, bool d_model_given, Random& random,
                                  std::uint64_t square_matrices) {
    if (!input_path.empty()) {
        Sequence seq = load_sequence(input_path, default_sentence, square_matrices);
        if (d_model_given && d_model != cols(seq.X))
            throw InputError(fmt::format("--d-model {}: with --input, d_model is the width of {} ({})", d_model,
                                         input_path, cols(seq.X)));
        return seq;
    }
    Sequence seq;
    seq.tokens = embed_sentence(read_data_file("embeddings.csv"), default_sentence).tokens;
    seq.X = random_embeddings(seq.tokens, d_model, random);
    seq.dimensions = numbered("d", d_model);
    return seq;
}

void require_projects(const LabelledMatrix& W, const Sequence& seq, const std::string& sequence_source) {
    if (seq.dimensions != W.rows)
        throw InputError(fmt::format("{}: has the {} columns {}, but {} projects the {} dimensions {} "
                                     "(same names, same order)",
                                     sequence_source, seq.dimensions.size(), join_elided(seq.dimensions, ","),
                                     W.source, W.rows.size(), join_elided(W.rows, ",")));
}

void refuse_text(Lesson& lesson, const std::string& why) {
    lesson.refuse_option("--text", "your sentence through chapter 22's GPT: not in this chapter (" + why + ")", why);
}
