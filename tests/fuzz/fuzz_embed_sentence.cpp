// libFuzzer target: a sentence looked up in a table, both from the input.
// The first line is the sentence, the rest a labelled CSV (when it does not
// parse, data/embeddings.csv is used). A sentence with an unknown word or no
// word must be an InputError; anything else that goes wrong is a bug.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/inputs/sequence.hpp"
#include "common/numbers/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const LabelledMatrix embeddings = read_data_file("embeddings.csv");
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto newline = text.find('\n');
    const std::string sentence = text.substr(0, newline);
    LabelledMatrix table = embeddings;
    if (newline != std::string::npos) {
        try {
            table = parse_labelled_csv(text.substr(newline + 1), "fuzz.csv");
        } catch (const InputError&) {
        }
    }
    try {
        const Sequence seq = embed_sentence(table, sentence);
        if (seq.tokens.empty() || rows(seq.X) != seq.tokens.size() || cols(seq.X) != table.columns.size())
            std::abort();
    } catch (const InputError&) {
    }
    return 0;
}
