#include "common/output/carried_files.hpp"

#include <optional>

#include <fmt/format.h>

#include "common/machine/whole_file.hpp"
#include "common/numbers/input_error.hpp"

namespace {

std::string base64(const std::string& bytes) {
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    for (std::size_t i = 0; i < bytes.size(); i += 3) {
        const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
        unsigned v = 0;
        for (std::size_t k = 0; k < 3; ++k) v = v << 8 | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0u);
        for (std::size_t k = 0; k < 4; ++k) out += k <= n ? digits[(v >> (18 - 6 * k)) & 63] : '=';
    }
    return out;
}

}  // namespace

std::string carried_files_script(const std::vector<CarriedFile>& files) {
    std::string entries;
    for (const CarriedFile& f : files) {
        const std::optional<std::string> bytes = whole_file(f.path);
        if (!bytes) throw InputError(fmt::format("--html: cannot read {}", f.path));
        entries += fmt::format("{}\n  {:?}: \"{}\"", entries.empty() ? "" : ",", f.name, base64(*bytes));
    }
    return "window.tutorialTrainedModel = {" + entries + "\n};\n";
}
