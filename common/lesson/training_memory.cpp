#include "common/lesson/training_memory.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/lesson/whole_file.hpp"

namespace {

namespace fs = std::filesystem;

const std::string header = "attention-step-by-step trained copy-task model, version 1\n";

// The program's own bytes, hashed once: a model trained by other code (an edited mathematics, the
// tests' copy of a chapter without 1/√d_k) is never read back. In the browser, which has no
// /proc/self/exe, the page's worker hashes the WebAssembly it runs and says so in
// $TUTORIAL_PROGRAM_FINGERPRINT (explorer/live.js). Empty when neither is there.
const std::string& program_fingerprint() {
    static const std::string fingerprint = [] {
        const std::optional<std::string> bytes = whole_file("/proc/self/exe");
        if (bytes && !bytes->empty()) return fmt::format("program {:016x}", fnv1a(*bytes));
        const char* given = std::getenv("TUTORIAL_PROGRAM_FINGERPRINT");
        return given && *given ? fmt::format("program {}", given) : std::string();
    }();
    return fingerprint;
}

std::string key_of(const CopyTaskSettings& s) { return program_fingerprint() + "\n" + settings_text(s) + "\n"; }

// The numbers of a trained model, written and read in one order.
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

void put_model(Numbers& out, AttentionOnlyModel<float> m) {
    for (const Mat<float>* p : parameters(m)) {
        out.put(std::uint64_t(rows(*p))), out.put(std::uint64_t(cols(*p)));
        for (std::size_t i = 0; i < p->size(); ++i) out.put(p->flat(i));
    }
}

// Fills a model of the settings' shapes; false when the numbers are not of those shapes.
bool get_model(Numbers& in, const CopyTaskSettings& s, AttentionOnlyModel<float>& m) {
    m = starting_model(s);
    for (Mat<float>* p : parameters(m)) {
        std::uint64_t r = 0, c = 0;
        if (!in.get(r) || !in.get(c) || r != rows(*p) || c != cols(*p)) return false;
        for (std::size_t i = 0; i < p->size(); ++i)
            if (!in.get(p->flat(i))) return false;
    }
    return true;
}

void put_halves(Numbers& out, const Halves& h) {
    out.put(h.loss_first), out.put(h.loss_second), out.put(h.accuracy_first), out.put(h.accuracy_second);
}
bool get_halves(Numbers& in, Halves& h) {
    return in.get(h.loss_first) && in.get(h.loss_second) && in.get(h.accuracy_first) && in.get(h.accuracy_second);
}

}  // namespace

std::uint64_t fnv1a(const std::string& bytes) {
    std::uint64_t h = 14695981039346656037ull;
    for (const char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return h;
}

std::string trained_folder() {
    if (const char* chosen = std::getenv("TUTORIAL_TRAINED")) return chosen;
    std::error_code error;
    const fs::path program = fs::read_symlink("/proc/self/exe", error);
    return error ? std::string() : (program.parent_path().parent_path() / "trained").string();
}

TrainedOnDisk::TrainedOnDisk() : folder_(trained_folder()) {}

std::string TrainedOnDisk::file_for(const CopyTaskSettings& s) const {
    if (folder_.empty() || program_fingerprint().empty()) return {};
    return (fs::path(folder_) / fmt::format("{:016x}.model", fnv1a(key_of(s)))).string();
}

bool TrainedOnDisk::recall(const CopyTaskSettings& s, TrainedModel& model) {
    for (const auto& [key, kept] : this_run_)
        if (key == key_of(s)) {
            model = kept;
            return true;
        }
    const std::string file = file_for(s);
    if (file.empty()) return false;
    const std::optional<std::string> read = whole_file(file);
    if (!read) return false;
    const std::string& text = *read;
    const std::string head = header + key_of(s);
    constexpr std::size_t sum_size = sizeof(std::uint64_t);
    if (text.size() < head.size() + sum_size || text.compare(0, head.size(), head) != 0) return false;
    const std::string body = text.substr(head.size(), text.size() - head.size() - sum_size);
    std::uint64_t sum = 0;
    std::memcpy(&sum, text.data() + text.size() - sum_size, sum_size);
    if (sum != fnv1a(body)) return false;
    Numbers numbers(body);
    TrainedModel m;
    std::uint64_t logged = 0;
    if (!numbers.get(logged) || logged == 0 || logged > body.size()) return false;
    m.curve.resize(logged);
    for (LoggedStep& step : m.curve)
        if (!numbers.get(step.step) || !numbers.get(step.loss_first) || !numbers.get(step.loss_second)) return false;
    if (!get_halves(numbers, m.before) || !get_halves(numbers, m.after) || !get_model(numbers, s, m.start) ||
        !get_model(numbers, s, m.trained) || !numbers.done())
        return false;
    model = std::move(m);
    return true;
}

void TrainedOnDisk::remember(const CopyTaskSettings& s, const TrainedModel& model) {
    this_run_.emplace_back(key_of(s), model);
    const std::string file = file_for(s);
    if (file.empty() || model.curve.empty()) return;
    Numbers numbers;
    numbers.put(std::uint64_t(model.curve.size()));
    for (const LoggedStep& step : model.curve) numbers.put(step.step), numbers.put(step.loss_first), numbers.put(step.loss_second);
    put_halves(numbers, model.before), put_halves(numbers, model.after);
    put_model(numbers, model.start), put_model(numbers, model.trained);
    // Written beside, then renamed over: a reader sees the whole file or none, even when two
    // runs train the same model at once. Nothing kept is no error: the next run trains again.
    std::error_code error;
    fs::create_directories(folder_, error);
    const std::string partial = fmt::format("{}.{}.partial", file, getpid());
    {
        std::ofstream out(partial, std::ios::binary | std::ios::trunc);
        const std::uint64_t sum = fnv1a(numbers.bytes());
        out << header << key_of(s) << numbers.bytes();
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
