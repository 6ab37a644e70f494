// A checkpoint reads back what was written, and refuses in one line anything else: a folder cut
// short, a file of another shape, another recipe, another version of the code.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/numbers/input_error.hpp"
#include "common/training/checkpoint.hpp"

namespace {

namespace fs = std::filesystem;

Checkpoint small_checkpoint() {
    Checkpoint c;
    c.code = "gpt abc123";
    c.recipe = "layers 2\nheads 2\n";
    c.tensors = {{"transformer.wte.weight", {3, 2}, {1.5f, -2.0f, 0.25f, 1e-30f, -0.0f, 3.0f}},
                 {"transformer.ln_f.bias", {2}, {0.5f, -0.5f}}};
    c.texts = {{"tokenizer.txt", "merges 1\nt h\n"}};
    return c;
}

std::vector<NamedTensor> shapes_of(const Checkpoint& c) {
    std::vector<NamedTensor> wanted;
    for (const NamedTensor& t : c.tensors) wanted.push_back({t.name, t.shape, {}});
    return wanted;
}

struct ScratchFolder {
    fs::path path = fs::temp_directory_path() / ("checkpoint-test-" + std::to_string(::getpid()));
    ~ScratchFolder() { fs::remove_all(path); }
};

std::string refusal(const std::string& dir, const Checkpoint& want) {
    try {
        load_checkpoint(dir, want.code, want.recipe, shapes_of(want), {"tokenizer.txt"});
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("a checkpoint reads back bit for bit, and replaces an earlier one whole") {
    ScratchFolder scratch;
    const std::string dir = (scratch.path / "model").string();
    Checkpoint c = small_checkpoint();
    save_checkpoint(dir, c);
    c.tensors[0].values[0] = 7.0f;
    save_checkpoint(dir, c);  // over the first
    const Checkpoint back = load_checkpoint(dir, c.code, c.recipe, shapes_of(c), {"tokenizer.txt"});
    REQUIRE(back.tensors.size() == 2);
    CHECK(back.tensors[0].values == c.tensors[0].values);
    CHECK(std::signbit(back.tensors[0].values[4]));
    CHECK(back.tensors[1].values == c.tensors[1].values);
    CHECK(back.texts == c.texts);
    std::size_t entries = 0;
    for (const auto& e : fs::directory_iterator(scratch.path)) entries += e.path().filename() == "model" ? 1 : 100;
    CHECK(entries == 1);  // no partial or old folder left beside it
}

TEST_CASE("the .npy header is numpy's, 64-byte aligned") {
    const std::string bytes = npy_bytes({"x", {2, 3}, {1, 2, 3, 4, 5, 6}});
    CHECK(bytes.size() == 128 + 6 * 4);
    // numpy 1.24's np.save of a (2, 3) float32 array begins with these 128 bytes.
    std::string numpy_header = std::string("\x93NUMPY\x01\x00\x76\x00", 10) +
                               "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    numpy_header += std::string(127 - numpy_header.size(), ' ') + "\n";
    CHECK(bytes.substr(0, 128) == numpy_header);
    CHECK(npy_bytes({"v", {5}, {1, 2, 3, 4, 5}}).find("'shape': (5,), }") != std::string::npos);
}

TEST_CASE("a damaged or foreign checkpoint is refused in one line naming the folder") {
    ScratchFolder scratch;
    const std::string dir = (scratch.path / "model").string();
    const Checkpoint c = small_checkpoint();
    CHECK(refusal(dir, c) == dir + ": no checkpoint there (not a folder)");
    save_checkpoint(dir, c);
    CHECK(refusal(dir, c).empty());

    SUBCASE("cut short") {
        fs::resize_file(fs::path(dir) / "transformer.wte.weight.npy", 128 + 10);
        CHECK(refusal(dir, c) == dir + "/transformer.wte.weight.npy: 10 bytes of numbers where the shape (3, 2) needs 24 (cut short)");
    }
    SUBCASE("a weight that is not a number") {
        // the file's fourth float (bytes 12–15 after its 128-byte header) becomes a NaN, then +inf
        const fs::path wte = fs::path(dir) / "transformer.wte.weight.npy";
        for (const char* bits : {"\x00\x00\xc0\x7f", "\x00\x00\x80\x7f"}) {
            std::fstream file(wte, std::ios::in | std::ios::out | std::ios::binary);
            file.seekp(128 + 12);
            file.write(bits, 4);
            file.close();
            CHECK(refusal(dir, c) == dir + "/transformer.wte.weight.npy: number 4 of 6 is " +
                                         (bits[2] == '\xc0' ? "NaN" : "infinite") + " (a trained weight is a finite number)");
        }
    }
    SUBCASE("a file missing") {
        fs::remove(fs::path(dir) / "tokenizer.txt");
        CHECK(refusal(dir, c) == dir + ": tokenizer.txt is missing");
    }
    SUBCASE("another shape") {
        Checkpoint wider = c;
        wider.tensors[0].shape = {3, 4};
        CHECK(refusal(dir, wider) == dir + "/transformer.wte.weight.npy: expected the shape (3, 4)");
    }
    SUBCASE("another recipe") {
        Checkpoint other = c;
        other.recipe = "layers 2\nheads 4\n";
        CHECK(refusal(dir, other) == dir + ": trained with another recipe (heads 2 where this run asks for heads 4)");
    }
    SUBCASE("another version of the code") {
        Checkpoint newer = c;
        newer.code = "gpt def456";
        CHECK(refusal(dir, newer) ==
              dir + ": trained by another version of the code (gpt abc123, this program is gpt def456): train again with --train");
    }
    SUBCASE("not a checkpoint") {
        std::ofstream(fs::path(dir) / "recipe.txt") << "hello\n";
        CHECK(refusal(dir, c) == dir + "/recipe.txt: expected \"checkpoint 1\" then a line \"code …\"");
    }
}
