// What a run computed and a later run reads back instead of computing again: a file that holds
// a header, the key it was computed under, the numbers, and their FNV-1a sum. It is read back
// only whole and under the same key; a file cut short, damaged or of another key reads as none.
//
//   Numbers out; out.put(loss); put_matrix(out, weights);
//   write_kept(file, key, out.bytes());                  // beside, then renamed over
//   if (auto bytes = read_kept(file, key)) { Numbers in(*bytes); in.get(loss); … }
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "common/numbers/matrix.hpp"

// FNV-1a, 64 bits: names a kept file or folder after its key, and sums its numbers to find a
// damaged one.
std::uint64_t fnv1a(const std::string& bytes);

// The program's own bytes, hashed once ("program <hash>"): what other code computed (an edited
// mathematics, an exercise's stub) is never read back. In the browser, which has no
// /proc/self/exe, the page's worker hashes the WebAssembly it runs and says so in
// $TUTORIAL_PROGRAM_FINGERPRINT (explorer/live/live_worker.js). Empty when neither is there: keep nothing.
const std::string& program_fingerprint();

// Numbers written and read in one order, as their bytes.
class Numbers {
public:
    explicit Numbers(std::string bytes = {}) : bytes_(std::move(bytes)) {}
    template <class T>
    void put(T x) { bytes_.append(reinterpret_cast<const char*>(&x), sizeof x); }
    template <class T>
    bool get(T& x) {
        if (bytes_.size() - at_ < sizeof x) return false;
        std::memcpy(&x, bytes_.data() + at_, sizeof x);
        at_ += sizeof x;
        return true;
    }
    bool done() const { return at_ == bytes_.size(); }
    const std::string& bytes() const { return bytes_; }

private:
    std::string bytes_;
    std::size_t at_ = 0;
};

// A matrix as its shape and entries; read back only whole.
void put_matrix(Numbers& out, const Matrix& m);
bool get_matrix(Numbers& in, Matrix& m);

// The bytes kept in `file` under `key`, if it holds them whole.
std::optional<std::string> read_kept(const std::string& file, const std::string& key);
// Keeps `bytes` in `file` under `key` (its folder made when missing), written beside and renamed
// over: a reader sees the whole file or none, even when two runs write it at once. A file that
// cannot be written is no error: the next run computes again.
void write_kept(const std::string& file, const std::string& key, const std::string& bytes);
