#include "common/training/checkpoint.hpp"

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/machine/whole_file.hpp"
#include "common/numbers/input_error.hpp"
#include "common/output/output_files.hpp"

namespace {

namespace fs = std::filesystem;

const std::string first_line = "checkpoint 1";

std::string shape_text(const std::vector<std::size_t>& shape) {
    return shape.size() == 1 ? fmt::format("({},)", shape[0]) : fmt::format("({})", fmt::join(shape, ", "));
}

std::string recipe_file(const Checkpoint& c) { return first_line + "\ncode " + c.code + "\n" + c.recipe; }

// The whole file; when it cannot be read, an InputError that says what is missing.
std::string whole_or_missing(const fs::path& path, const std::string& missing) {
    std::optional<std::string> bytes = whole_file(path);
    if (!bytes) throw InputError(missing);
    return std::move(*bytes);
}

}  // namespace

std::string npy_bytes(const NamedTensor& t) {
    std::string header = fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': {}, }}", shape_text(t.shape));
    header.append(63 - (10 + header.size()) % 64, ' ');  // the whole header a multiple of 64 bytes
    header += '\n';
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(header.size() & 0xff);
    bytes += static_cast<char>(header.size() >> 8);
    bytes += header;
    bytes.append(reinterpret_cast<const char*>(t.values.data()), t.values.size() * sizeof(float));
    return bytes;
}

std::vector<float> read_npy(const std::string& bytes, const std::string& file, const std::vector<std::size_t>& shape) {
    if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0 || bytes[6] != 1)
        throw InputError(file + ": not a .npy file of version 1");
    const std::size_t header_size = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
    if (bytes.size() < 10 + header_size) throw InputError(file + ": cut short inside its header");
    const std::string header = bytes.substr(10, header_size);
    const std::string want = fmt::format("'shape': {}", shape_text(shape));
    if (header.find("'descr': '<f4'") == std::string::npos || header.find("'fortran_order': False") == std::string::npos)
        throw InputError(file + ": expected little-endian float32 in C order ('<f4', fortran_order False)");
    if (header.find(want) == std::string::npos) throw InputError(file + ": expected the shape " + shape_text(shape));
    std::size_t count = 1;
    for (const std::size_t s : shape) count *= s;
    const std::size_t have = bytes.size() - 10 - header_size;
    if (have != count * sizeof(float))
        throw InputError(fmt::format("{}: {} bytes of numbers where the shape {} needs {}{}", file, have,
                                     shape_text(shape), count * sizeof(float), have < count * sizeof(float) ? " (cut short)" : ""));
    std::vector<float> values(count);
    std::memcpy(values.data(), bytes.data() + 10 + header_size, have);
    // A NaN or an infinity among the weights is a damaged file (or a training that diverged):
    // it would spread through every product that reads it, and fail checks that name no file.
    for (std::size_t i = 0; i < count; ++i)
        if (!std::isfinite(values[i]))
            throw InputError(fmt::format("{}: number {} of {} is {} (a trained weight is a finite number)", file,
                                         i + 1, count, std::isnan(values[i]) ? "NaN" : "infinite"));
    return values;
}

void save_checkpoint(const std::string& dir, const Checkpoint& c) {
    const fs::path target(dir), partial(dir + ".partial-" + std::to_string(::getpid()));
    std::error_code error;
    fs::remove_all(partial, error);
    fs::create_directories(partial, error);
    if (error) throw std::runtime_error("cannot create " + partial.string() + " (" + error.message() + ")");
    try {
        OutputFiles files;
        files.add((partial / "recipe.txt").string(), recipe_file(c));
        for (const NamedTensor& t : c.tensors) files.add((partial / (t.name + ".npy")).string(), npy_bytes(t));
        for (const auto& [name, text] : c.texts) files.add((partial / name).string(), text);
        files.write_all();
        const fs::path old(dir + ".old-" + std::to_string(::getpid()));
        if (fs::exists(target)) fs::rename(target, old);
        fs::rename(partial, target);
        fs::remove_all(old, error);
    } catch (const std::exception& e) {
        fs::remove_all(partial, error);
        throw std::runtime_error(std::string("cannot write the checkpoint ") + dir + ": " + e.what());
    }
}

Checkpoint load_checkpoint(const std::string& dir, const std::string& code, const std::string& recipe,
                           const std::vector<NamedTensor>& expected, const std::vector<std::string>& text_names) {
    const fs::path folder(dir);
    if (!fs::is_directory(folder)) throw InputError(dir + ": no checkpoint there (not a folder)");
    const std::string head = whole_or_missing(folder / "recipe.txt", dir + ": no recipe.txt (not a checkpoint)");
    Checkpoint c;
    const std::string code_line = "code ";
    const std::size_t end_first = head.find('\n'), end_code = head.find('\n', end_first + 1);
    if (end_first == std::string::npos || head.substr(0, end_first) != first_line || end_code == std::string::npos ||
        head.compare(end_first + 1, code_line.size(), code_line) != 0)
        throw InputError(dir + "/recipe.txt: expected \"" + first_line + "\" then a line \"code …\"");
    c.code = head.substr(end_first + 1 + code_line.size(), end_code - end_first - 1 - code_line.size());
    c.recipe = head.substr(end_code + 1);
    if (c.code != code)
        throw InputError(dir + ": trained by another version of the code (" + c.code + ", this program is " + code +
                         "): train again with --train");
    if (c.recipe != recipe) {
        std::string mine, theirs;  // the first line where the recipes differ
        std::size_t a = 0, b = 0;
        while (a < recipe.size() || b < c.recipe.size()) {
            const std::size_t ea = std::min(recipe.find('\n', a), recipe.size()), eb = std::min(c.recipe.find('\n', b), c.recipe.size());
            mine = recipe.substr(a, ea - a), theirs = c.recipe.substr(b, eb - b);
            if (mine != theirs) break;
            a = ea + 1, b = eb + 1;
        }
        throw InputError(dir + ": trained with another recipe (" + (theirs.empty() ? "nothing" : theirs) +
                         " where this run asks for " + (mine.empty() ? "nothing" : mine) + ")");
    }
    for (const NamedTensor& want : expected) {
        const fs::path file = folder / (want.name + ".npy");
        const std::string bytes = whole_or_missing(file, dir + ": " + want.name + ".npy is missing");
        c.tensors.push_back({want.name, want.shape, read_npy(bytes, file.string(), want.shape)});
    }
    for (const std::string& name : text_names) {
        c.texts.emplace_back(name, whole_or_missing(folder / name, dir + ": " + name + " is missing"));
    }
    return c;
}
