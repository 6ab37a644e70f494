#include "common/machine/whole_file.hpp"

#include <fstream>

std::optional<std::string> whole_file(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return std::nullopt;
    std::string bytes;
    char block[1 << 16];
    while (in.read(block, sizeof block) || in.gcount() > 0) bytes.append(block, std::size_t(in.gcount()));
    if (in.bad()) return std::nullopt;
    return bytes;
}
