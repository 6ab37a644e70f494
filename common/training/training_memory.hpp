// Trained models kept on disk, so that a run reads back what an earlier one trained: the
// copy task's trainings (chapters 16, 19 and 20) are the seconds a learner waits, and
// --step, --dump, --html and a second run would otherwise train the same models again.
//
// A model is kept under its settings (settings_text) and a fingerprint of the program that
// trained it (a hash of its own bytes): the same settings and the same code train the same
// model to the last bit, so what is read back is what training would give. Any change to the
// code (a rebuild that changed the program), or to a setting, trains anew. A file that does
// not read back whole (cut short, another version) is trained anew and written again.
//
// Where: $TUTORIAL_TRAINED when it is set (empty: no folder), else the user's cache folder,
// ~/.cache/attention-step-by-step/trained ($XDG_CACHE_HOME for ~/.cache when it is set), outside
// the clone: a new clone, a deleted build folder or the tests read back what the same code
// trained; without a home, trained/ beside the program's folder. A folder that cannot be
// written keeps nothing, and the run trains as it would without it. Within one run a model is
// also kept in memory, so that it is trained once even without a folder.
#pragma once

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/copy_model/copy_task.hpp"
#include "common/training/kept_file.hpp"

// The folder trained models are kept in: $TUTORIAL_TRAINED when it is set, else the user's cache
// folder (above); empty when there is none.
std::string trained_folder();

class TrainedOnDisk : public TrainingMemory {
public:
    TrainedOnDisk();  // the folder, from $TUTORIAL_TRAINED or the program's path
    explicit TrainedOnDisk(std::string folder) : folder_(std::move(folder)) {}

    bool recall(const CopyTaskSettings& s, TrainedModel& model) override;
    void remember(const CopyTaskSettings& s, const TrainedModel& model) override;

    // The file a model of these settings is kept in (empty: none is kept).
    std::string file_for(const CopyTaskSettings& s) const;

private:
    std::string folder_;
    std::mutex mutex_;  // trainings on several threads (chapters 19 and 20) ask and tell at once
    std::vector<std::pair<std::string, TrainedModel>> this_run_;  // key_of(settings), model
};

// How the copy task's programs start (chapters 16, 19 and 20, first thing): one BLAS thread (their
// products are small: threads would cost more than they save), the trainings' buffers reused
// between steps, and their models kept in trained_folder(): a model an earlier run trained with
// the same settings and code is read back, not trained again.
void start_copy_task_trainings();
