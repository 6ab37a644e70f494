// Chapter 10 · the self-checks: each claim against something computed another way (the
// reference attention by loops in double, with every key, a centred window or LongNet's
// pattern; the measurements' own sizes).
#pragma once

#include <string>

#include "chapters/10_long_sequences/experiment.hpp"
#include "common/lesson/self_check.hpp"

// `online_step` names the step that shows the one-query loop ("step 3").
void check_long_sequences(SelfChecks& check, const LongSequences& r, const Settings& s,
                          const std::string& online_step);

// --streaming-only: the first outputs against the reference.
void check_streaming_only(SelfChecks& check, const StreamingOnly& r, const Settings& s);
