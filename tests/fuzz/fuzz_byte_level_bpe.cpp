// libFuzzer target: GPT-2's byte-level BPE (common/byte_tokens/byte_level_bpe.hpp) on any bytes.
// The input, split at its first NUL byte, read as encoder.json and vocab.bpe must give a tokenizer
// or an InputError; read as text (an InputError when it is not UTF-8), GPT-2's pattern's pieces
// joined must be the text, and through a vocabulary of the 256 bytes and two merges
// decode(encode(text)) must be the text. Anything else that goes wrong is a bug.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/byte_tokens/byte_level_bpe.hpp"
#include "common/numbers/input_error.hpp"

namespace {

const ByteLevelBpe& bytes_and_two_merges() {
    static const ByteLevelBpe bpe = [] {
        std::string json = "{";
        for (int b = 0; b < 256; ++b) {
            std::string symbol = byte_symbol(static_cast<unsigned char>(b));
            if (symbol == "\"" || symbol == "\\") symbol = "\\" + symbol;
            json += (b ? ", \"" : "\"") + symbol + "\": " + std::to_string(b);
        }
        json += ", \"Ġt\": 256, \"he\": 257}";
        return read_byte_level_bpe(json, "encoder.json", "#version: 0.2\nĠ t\nh e\n", "vocab.bpe");
    }();
    return bpe;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 4096) return 0;
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    const std::size_t nul = bytes.find('\0');
    try {
        read_byte_level_bpe(bytes.substr(0, nul), "encoder.json", nul == std::string::npos ? "" : bytes.substr(nul + 1),
                            "vocab.bpe");
    } catch (const InputError&) {
    }
    std::string joined;
    try {
        for (const std::string& piece : gpt2_pieces(bytes)) joined += piece;
    } catch (const InputError&) {
        return 0;  // not UTF-8
    }
    if (joined != bytes) std::abort();
    const ByteLevelBpe& bpe = bytes_and_two_merges();
    if (decode_bytes(bpe, encode_bytes(bpe, bytes)) != bytes) std::abort();
    return 0;
}
