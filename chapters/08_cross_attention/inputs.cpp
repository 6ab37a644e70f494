#include "chapters/08_cross_attention/inputs.hpp"

#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/inputs/sequence.hpp"
#include "common/lesson/lesson.hpp"
#include "common/numbers/input_error.hpp"

const std::string default_source = "the black cat sat";
const std::string default_target = "le chat noir";

namespace {

// A sequence from a labelled CSV (--encoder/--decoder PATH) or from words looked up
// in data/translation/<vocabulary>.
Sequence load(const std::string& path, const std::string& words, const std::string& vocabulary,
              const std::string& words_flag) {
    if (path.empty()) {
        const LabelledMatrix table = read_data_file("translation/" + vocabulary);
        try {
            return embed_sentence(table, words);
        } catch (const InputError& error) {
            throw InputError(fmt::format("{} \"{}\": {}", words_flag, words, error.what()));
        }
    }
    LabelledMatrix table = read_labelled_csv(path);
    return Sequence{table.rows, table.columns, std::move(table.values)};
}

}  // namespace

void add_flags(Lesson& lesson, Flags& f) {
    lesson.option("--encoder", f.encoder_path,
                  "the encoder's sequence as a labelled CSV (header token,<the rows of data/translation/W_K.csv>)",
                  Text::path);
    lesson.option("--decoder", f.decoder_path,
                  "the decoder's sequence as a labelled CSV (header token,<the rows of data/translation/W_Q.csv>)",
                  Text::path);
    lesson.option("--source", f.source_words,
                  "the English words the encoder read, from data/translation/encoder.csv (default: " +
                      default_source + ")")
        .excludes("--encoder");
    lesson.option("--target", f.target_words,
                  "the French words the decoder has written, from data/translation/decoder.csv (default: " +
                      default_target + ")")
        .excludes("--decoder");
}

Inputs load_inputs(const Flags& f) {
    Weights W{read_data_file("translation/W_Q.csv"), read_data_file("translation/W_K.csv"),
              read_data_file("translation/W_V.csv")};
    const std::string source = f.source_words.empty() ? default_source : fmt::format("{}", fmt::join(f.source_words, " "));
    const std::string target = f.target_words.empty() ? default_target : fmt::format("{}", fmt::join(f.target_words, " "));
    Sequence enc = load(f.encoder_path, source, "encoder.csv", "--source");
    Sequence dec = load(f.decoder_path, target, "decoder.csv", "--target");
    require_projects(W.W_K, enc,
                     f.encoder_path.empty() ? data_path("translation/encoder.csv") : "--encoder " + f.encoder_path);
    require_projects(W.W_Q, dec,
                     f.decoder_path.empty() ? data_path("translation/decoder.csv") : "--decoder " + f.decoder_path);
    if (W.W_K.rows != W.W_V.rows || W.W_Q.columns.size() != W.W_K.columns.size())
        throw InputError(fmt::format("{}, {}, {}: W_K and W_V must read the same dimensions, and W_Q and W_K "
                                     "must have the same number of columns (d_k)",
                                     W.W_Q.source, W.W_K.source, W.W_V.source));
    return Inputs{std::move(W), std::move(enc), std::move(dec)};
}

