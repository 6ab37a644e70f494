// Trained models kept on disk (common/training/training_memory): what is read back is what
// training gave, bit for bit; a file for other settings, cut short or damaged is not read
// back; and train_copy_task asks the memory first and tells it after.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "common/training/training_memory.hpp"

namespace {

namespace fs = std::filesystem;

CopyTaskSettings tiny() {
    CopyTaskSettings s;
    s.vocabulary = 6, s.half_length = 4, s.d_model = 8, s.steps = 5, s.log_every = 2;
    return s;
}

bool same_model(AttentionOnlyModel<float> a, AttentionOnlyModel<float> b) {
    const std::vector<Mat<float>*> pa = parameters(a), pb = parameters(b);
    if (pa.size() != pb.size()) return false;
    for (std::size_t p = 0; p < pa.size(); ++p)
        if (pa[p]->shape() != pb[p]->shape() || !(*pa[p] == *pb[p])) return false;  // exactly
    return true;
}

struct Folder {
    fs::path path = fs::temp_directory_path() / ("training_memory_test_" + std::to_string(::getpid()));
    Folder() { fs::remove_all(path); }
    ~Folder() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("training memory: the settings' text changes with every field") {
    const CopyTaskSettings base = tiny();
    const std::vector<std::function<void(CopyTaskSettings&)>> changes = {
        [](CopyTaskSettings& s) { s.vocabulary += 1; },    [](CopyTaskSettings& s) { s.half_length += 1; },
        [](CopyTaskSettings& s) { s.d_model += 1; },       [](CopyTaskSettings& s) { s.layers += 1; },
        [](CopyTaskSettings& s) { s.heads += 1; },         [](CopyTaskSettings& s) { s.batch += 1; },
        [](CopyTaskSettings& s) { s.steps += 1; },         [](CopyTaskSettings& s) { s.log_every += 1; },
        [](CopyTaskSettings& s) { s.lr *= 1.0000001f; },   [](CopyTaskSettings& s) { s.decay_share += 0.01f; },
        [](CopyTaskSettings& s) { s.learned_positions = !s.learned_positions; },
        [](CopyTaskSettings& s) { s.seed += 1; },          [](CopyTaskSettings& s) { s.mixer = Mixer::delta; },
        [](CopyTaskSettings& s) { s.variant.window += 1; }, [](CopyTaskSettings& s) { s.variant.sinks += 1; },
        [](CopyTaskSettings& s) { s.variant.top_k += 1; }, [](CopyTaskSettings& s) { s.variant.indexer_rank += 1; },
        [](CopyTaskSettings& s) { s.variant.sink_logit = true; },
        [](CopyTaskSettings& s) { s.variant.kv_heads += 1; }, [](CopyTaskSettings& s) { s.variant.latent += 1; },
    };
    for (std::size_t c = 0; c < changes.size(); ++c) {
        CopyTaskSettings changed = base;
        changes[c](changed);
        CAPTURE(c);
        CHECK(settings_text(changed) != settings_text(base));
    }
}

TEST_CASE("training memory: a model trained once is read back bit for bit, and only for its settings") {
    Folder folder;
    TrainedOnDisk memory(folder.path.string());
    const CopyTaskSettings s = tiny();
    const TrainedModel trained = train_copy_task(s, {});  // no memory: trains
    TrainedModel read;
    CHECK_FALSE(memory.recall(s, read));
    TrainedOnDisk(folder.path.string()).remember(s, trained);  // an earlier run
    REQUIRE(fs::exists(memory.file_for(s)));
    REQUIRE(memory.recall(s, read));                            // read back from the file
    CHECK(same_model(read.trained, trained.trained));
    CHECK(same_model(read.start, trained.start));
    CHECK(read.after.loss_second == trained.after.loss_second);
    CHECK(read.before.accuracy_first == trained.before.accuracy_first);
    REQUIRE(read.curve.size() == trained.curve.size());
    for (std::size_t i = 0; i < read.curve.size(); ++i) {
        CHECK(read.curve[i].step == trained.curve[i].step);
        CHECK(read.curve[i].loss_second == trained.curve[i].loss_second);
    }
    CopyTaskSettings other = s;
    other.seed += 1;
    CHECK_FALSE(memory.recall(other, read));

    SUBCASE("a damaged file is not read back") {
        std::fstream file(memory.file_for(s), std::ios::in | std::ios::out | std::ios::binary);
        file.seekp(-20, std::ios::end);
        file.put('\x7f');
        file.close();
        CHECK_FALSE(memory.recall(s, read));
    }
    SUBCASE("a file cut short is not read back") {
        fs::resize_file(memory.file_for(s), fs::file_size(memory.file_for(s)) - 9);
        CHECK_FALSE(memory.recall(s, read));
    }
    SUBCASE("a folder that cannot be made keeps nothing, and says nothing; the run itself still has it") {
        TrainedOnDisk nowhere("/proc/no_such_folder");
        nowhere.remember(s, trained);
        CHECK_FALSE(TrainedOnDisk("/proc/no_such_folder").recall(s, read));  // another run: nothing kept
        REQUIRE(nowhere.recall(s, read));                                     // this run: kept in memory
        CHECK(same_model(read.trained, trained.trained));
    }
}

TEST_CASE("training memory: train_copy_task asks it first, and trains only what it lacks") {
    Folder folder;
    TrainedOnDisk memory(folder.path.string());
    const CopyTaskSettings s = tiny();
    use_training_memory(&memory);
    std::vector<int> heard;
    const auto progress = [&](int step, int, const LoggedStep&) { heard.push_back(step); };
    const TrainedModel first = train_copy_task(s, progress);
    CHECK(heard == std::vector<int>{0, 2, 4, 5});  // trained: every logged step
    heard.clear();
    const TrainedModel second = train_copy_task(s, progress);
    CHECK(heard.empty());  // read back: no step trained
    use_training_memory(nullptr);
    CHECK(same_model(first.trained, second.trained));
    CHECK(same_model(first.trained, train_copy_task(s, {}).trained));  // and training again gives the same
}
