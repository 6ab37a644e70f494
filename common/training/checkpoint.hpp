// A trained model on disk, as a folder that numpy and PyTorch read as it is:
//
//   DIR/recipe.txt                      "checkpoint 1", the code that trained it, the recipe
//   DIR/transformer.wte.weight.npy      one float32 .npy per parameter, under PyTorch's name
//   DIR/…                               and any text the model needs (its tokenizer's merges)
//
// A checkpoint is written whole or not at all (a temporary folder renamed into place), and read
// back only when every file is there, whole, of the shape the recipe says, and written by the
// same code: anything else is an InputError of one line naming the folder and what is wrong.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

struct NamedTensor {
    std::string name;                // e.g. "transformer.h.0.attn.c_attn.weight"
    std::vector<std::size_t> shape;  // e.g. {384, 128}: PyTorch's (out × in) for a weight
    std::vector<float> values;       // row-major
};

struct Checkpoint {
    std::string code;    // the version of the code that trained it (one line)
    std::string recipe;  // the settings it was trained with, "key value" lines
    std::vector<NamedTensor> tensors;
    std::vector<std::pair<std::string, std::string>> texts;  // file name, contents
};

// Writes the checkpoint to `dir` (replacing an earlier one there); throws std::runtime_error
// naming the file when it cannot, and leaves no partial folder behind.
void save_checkpoint(const std::string& dir, const Checkpoint& checkpoint);

// Reads the checkpoint in `dir` whose tensors have the names and shapes of `expected` (their
// values are ignored), trained by `code` with `recipe`. Throws InputError: "DIR: …" when the
// folder is missing, cut short, of another recipe or another version of the code.
Checkpoint load_checkpoint(const std::string& dir, const std::string& code, const std::string& recipe,
                           const std::vector<NamedTensor>& expected, const std::vector<std::string>& text_names);

// The .npy bytes of a float32 array, and the array read back from them (InputError naming
// `file` when they are not a little-endian float32 C-order array of the expected shape).
std::string npy_bytes(const NamedTensor& tensor);
std::vector<float> read_npy(const std::string& bytes, const std::string& file, const std::vector<std::size_t>& shape);
