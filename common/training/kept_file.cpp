#include "common/training/kept_file.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "common/machine/environment.hpp"
#include "common/machine/whole_file.hpp"

namespace fs = std::filesystem;

std::uint64_t fnv1a(const std::string& bytes) {
    std::uint64_t h = 14695981039346656037ull;
    for (const char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return h;
}

const std::string& program_fingerprint() {
    static const std::string fingerprint = [] {
        const std::optional<std::string> bytes = whole_file("/proc/self/exe");
        if (bytes && !bytes->empty()) return fmt::format("program {:016x}", fnv1a(*bytes));
        const char* given = environment(Setting::program_fingerprint);
        return given && *given ? fmt::format("program {}", given) : std::string();
    }();
    return fingerprint;
}

void put_matrix(Numbers& out, const Matrix& m) {
    out.put(std::uint64_t(rows(m))), out.put(std::uint64_t(cols(m)));
    for (std::size_t i = 0; i < m.size(); ++i) out.put(m.flat(i));
}

bool get_matrix(Numbers& in, Matrix& m) {
    std::uint64_t r = 0, c = 0;
    if (!in.get(r) || !in.get(c) || r * c > in.bytes().size() / sizeof(float)) return false;
    Matrix read = Matrix::from_shape({std::size_t(r), std::size_t(c)});
    for (std::size_t i = 0; i < read.size(); ++i)
        if (!in.get(read.flat(i))) return false;
    m = std::move(read);
    return true;
}

std::optional<std::string> read_kept(const std::string& file, const std::string& key) {
    const std::optional<std::string> read = whole_file(file);
    constexpr std::size_t sum_size = sizeof(std::uint64_t);
    if (!read || read->size() < key.size() + sum_size || read->compare(0, key.size(), key) != 0) return std::nullopt;
    std::string body = read->substr(key.size(), read->size() - key.size() - sum_size);
    std::uint64_t sum = 0;
    std::memcpy(&sum, read->data() + read->size() - sum_size, sum_size);
    if (sum != fnv1a(body)) return std::nullopt;
    return body;
}

void write_kept(const std::string& file, const std::string& key, const std::string& bytes) {
    std::error_code error;
    fs::create_directories(fs::path(file).parent_path(), error);
    const std::string partial = fmt::format("{}.{}.partial", file, getpid());
    {
        std::ofstream out(partial, std::ios::binary | std::ios::trunc);
        const std::uint64_t sum = fnv1a(bytes);
        out << key << bytes;
        out.write(reinterpret_cast<const char*>(&sum), sizeof sum);
        if (!out.flush()) {
            out.close();
            fs::remove(partial, error);
            return;
        }
    }
    fs::rename(partial, file, error);
    if (error) fs::remove(partial, error);
}
