#include "common/byte_tokens/gpt2_files.hpp"

#include <filesystem>
#include <optional>

#include "common/machine/whole_file.hpp"
#include "common/numbers/input_error.hpp"
#include "common/text/corpus.hpp"

namespace {

constexpr std::size_t gpt2_symbols = 50257, gpt2_merges = 50000;
const char* const what_to_do = "run ./tutorial run (it installs GPT-2's vocabulary with npm into build/corpus/gpt2/)";

std::string read_or_refuse(const std::filesystem::path& file) {
    const std::optional<std::string> text = whole_file(file);
    if (!text) throw InputError(file.string() + ": missing: " + what_to_do);
    return *text;
}

}  // namespace

std::string gpt2_folder() { return (std::filesystem::path(default_corpus_file()).parent_path() / "gpt2").string(); }

const ByteLevelBpe& gpt2_tokenizer() {
    static const ByteLevelBpe bpe = [] {
        const std::filesystem::path folder = gpt2_folder(), encoder = folder / "encoder.json",
                                    vocab = folder / "vocab.bpe";
        ByteLevelBpe read =
            read_byte_level_bpe(read_or_refuse(encoder), encoder.string(), read_or_refuse(vocab), vocab.string());
        // Well formed but cut short at a line's end: fewer symbols or merges than GPT-2's.
        if (read.size() != gpt2_symbols)
            throw InputError(describe(encoder.string(), ": ", read.size(), " symbols, not GPT-2's ", gpt2_symbols,
                                      ": damaged; python3 tools/corpus.py installs it again"));
        if (read.ranks.size() != gpt2_merges)
            throw InputError(describe(vocab.string(), ": ", read.ranks.size(), " merges, not GPT-2's ", gpt2_merges,
                                      ": damaged; python3 tools/corpus.py installs it again"));
        return read;
    }();
    return bpe;
}
