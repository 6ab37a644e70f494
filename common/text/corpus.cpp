#include "common/text/corpus.hpp"

#include <cstdint>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>
#include <utf8proc.h>

#include "common/machine/machine_memory.hpp"
#include "common/machine/whole_file.hpp"
#include "common/numbers/input_error.hpp"

namespace {

// tools/corpus.py says the same line when it cannot set the text up.
const char* const what_to_do =
    "the Moby-Dick text is missing: run ./tutorial run (it installs it with npm into build/corpus/), "
    "or give your own UTF-8 text with --corpus FILE";

// What learning holds per character of the file: the code points (4 B), the words cut from
// them and their ids (about 12 B), the distinct words' tables: about 64 B in all, rounded up.
constexpr std::uint64_t bytes_per_character = 64;

}  // namespace

std::u32string code_points_of(const std::string& utf8, const std::string& what) {
    std::u32string out;
    out.reserve(utf8.size());
    const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(utf8.data());
    const auto size = static_cast<utf8proc_ssize_t>(utf8.size());
    for (utf8proc_ssize_t i = 0; i < size;) {
        if (bytes[i] < 0x80) {  // ASCII, most of an English text: one byte, one code point
            out.push_back(char32_t(bytes[i++]));
            continue;
        }
        utf8proc_int32_t code = 0;
        const utf8proc_ssize_t length = utf8proc_iterate(bytes + i, size - i, &code);
        if (length <= 0) throw InputError(fmt::format("{}: not UTF-8 text (at byte {})", what, i));
        out.push_back(static_cast<char32_t>(code));
        i += length;
    }
    return out;
}

std::string utf8_of(const std::u32string& text) {
    std::string out;
    out.reserve(text.size());
    for (char32_t c : text) {
        utf8proc_uint8_t bytes[4];
        const utf8proc_ssize_t length = utf8proc_encode_char(static_cast<utf8proc_int32_t>(c), bytes);
        out.append(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(length));
    }
    return out;
}

std::string default_corpus_file() { return TUTORIAL_CORPUS_FILE; }

Corpus load_corpus(const std::string& path, std::size_t fewest_characters) {
    const bool own = !path.empty();
    const std::string file = own ? path : TUTORIAL_CORPUS_FILE;
    const std::string what = own ? "--corpus " + path : "build/corpus/moby_dick.txt";
    std::error_code error;
    if (!std::filesystem::is_regular_file(file, error)) {
        if (!own) throw InputError(what_to_do);
        const bool exists = std::filesystem::exists(file, error);
        throw InputError(fmt::format("{}: {} (expected a UTF-8 text)", what, exists ? "not a file" : "no such file"));
    }
    const std::uint64_t bytes = std::filesystem::file_size(file, error);
    if (error) throw InputError(fmt::format("{}: cannot read it ({})", what, error.message()));
    require_memory(what, bytes * bytes_per_character, memory_limit_bytes());
    const std::optional<std::string> read = whole_file(file);
    if (!read) throw InputError(fmt::format("{}: cannot read it", what));
    const std::string& utf8 = *read;
    if (utf8.empty()) throw InputError(fmt::format("{}: the file is empty (expected a UTF-8 text)", what));
    const std::size_t nul = utf8.find('\0');
    if (nul != std::string::npos)
        throw InputError(fmt::format("{}: a binary file (a NUL byte at byte {}), expected a UTF-8 text", what, nul));
    Corpus corpus{code_points_of(utf8, what), own ? path : "Moby-Dick"};
    if (corpus.text.size() < fewest_characters)
        throw InputError(fmt::format("{}: {} characters, too short: at least {} are needed", what,
                                     corpus.text.size(), fewest_characters));
    const char32_t first = corpus.text.front();
    if (corpus.text.find_first_not_of(first) == std::u32string::npos)
        throw InputError(fmt::format("{}: one character (U+{:04X}) {} times over: a text to learn from needs two "
                                     "different characters at least", what, static_cast<std::uint32_t>(first),
                                     corpus.text.size()));
    return corpus;
}
