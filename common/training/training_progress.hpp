// What a training says while it runs, on stderr, so that a long wait is never silent: on a
// terminal one line that counts the steps, rewritten in place ("training MHA: step 340/1000");
// elsewhere (a pipe, a file, a log) one line as the training starts. A model read back
// from an earlier run (common/training/training_memory.hpp) trains nothing and says nothing.
#pragma once

#include <functional>
#include <string>

#include "common/copy_model/copy_task.hpp"

// `what` names the training ("training MHA"); `detail`, when set, adds to the terminal's line.
Progress training_progress(const std::string& what, std::function<std::string(int step, const LoggedStep&)> detail = {});
