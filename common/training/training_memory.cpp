#include "common/training/training_memory.hpp"

#include <cstdint>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "common/long_context/long_attention.hpp"  // set_blas_threads
#include "common/machine/environment.hpp"
#include "common/machine/machine_memory.hpp"  // reuse_training_buffers

namespace {

namespace fs = std::filesystem;

const std::string header = "attention-step-by-step trained copy-task model, version 1\n";
const char* const cache_subfolder = "attention-step-by-step/trained";

std::string key_of(const CopyTaskSettings& s) { return program_fingerprint() + "\n" + settings_text(s) + "\n"; }

void put_model(Numbers& out, AttentionOnlyModel<float> m) {
    for (const Mat<float>* p : parameters(m)) put_matrix(out, *p);
}

// Fills a model of the settings' shapes; false when the numbers are not of those shapes.
bool get_model(Numbers& in, const CopyTaskSettings& s, AttentionOnlyModel<float>& m) {
    m = starting_model(s);
    for (Mat<float>* p : parameters(m)) {
        Matrix read;
        if (!get_matrix(in, read) || read.shape() != p->shape()) return false;
        *p = std::move(read);
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

std::string trained_folder() {
    if (const char* chosen = environment(Setting::trained_folder)) return chosen;
    // XDG's rule: a relative $XDG_CACHE_HOME is to be ignored
    const char* cache = environment(Setting::cache_home);
    if (cache && fs::path(cache).is_absolute()) return (fs::path(cache) / cache_subfolder).string();
    const char* home = environment(Setting::home);
    if (home && fs::path(home).is_absolute()) return (fs::path(home) / ".cache" / cache_subfolder).string();
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
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const auto& [key, kept] : this_run_)
            if (key == key_of(s)) {
                model = kept;
                return true;
            }
    }
    const std::string file = file_for(s);
    if (file.empty()) return false;
    const std::optional<std::string> body = read_kept(file, header + key_of(s));
    if (!body) return false;
    Numbers numbers(*body);
    TrainedModel m;
    std::uint64_t logged = 0;
    if (!numbers.get(logged) || logged == 0 || logged > body->size()) return false;
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
    {
        std::lock_guard<std::mutex> lock(mutex_);
        this_run_.emplace_back(key_of(s), model);
    }
    const std::string file = file_for(s);
    if (file.empty() || model.curve.empty()) return;
    Numbers numbers;
    numbers.put(std::uint64_t(model.curve.size()));
    for (const LoggedStep& step : model.curve) numbers.put(step.step), numbers.put(step.loss_first), numbers.put(step.loss_second);
    put_halves(numbers, model.before), put_halves(numbers, model.after);
    put_model(numbers, model.start), put_model(numbers, model.trained);
    write_kept(file, header + key_of(s), numbers.bytes());
}

void start_copy_task_trainings() {
    set_blas_threads(1);
    reuse_training_buffers();
    static TrainedOnDisk trained_on_disk;
    use_training_memory(&trained_on_disk);
}
