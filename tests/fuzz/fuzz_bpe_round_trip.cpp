// libFuzzer target: byte-pair encoding learned on the input and read back.
// The first byte sets how many merges to learn (0–63); the rest, read as UTF-8 (an InputError
// when it is not), is the training text. Then decode(encode(text)) must be the text, the
// tokenizer written as text and read back must encode alike, and the raw input read as a
// tokenizer file must give one or an InputError. Anything else that goes wrong is a bug.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/numbers/input_error.hpp"
#include "common/text/corpus.hpp"
#include "common/tokens/tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0 || size > 4096) return 0;
    const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
    try {
        read_tokenizer(bytes);
    } catch (const InputError&) {
    }
    std::u32string text;
    try {
        text = code_points_of(bytes, "fuzz");
    } catch (const InputError&) {
        return 0;
    }
    const Tokenizer characters = char_tokenizer(text);
    const Tokenizer t = learn_bpe(characters, text, characters.size() + data[0] % 64);
    const TokenIds ids = encode(t, text);
    if (decode(t, ids) != text || ids.size() > text.size()) std::abort();
    if (encode(read_tokenizer(tokenizer_text(t)), text) != ids) std::abort();
    std::u32string joined;
    for (const std::u32string& w : split_words(text)) joined += w;
    if (joined != text) std::abort();
    return 0;
}
