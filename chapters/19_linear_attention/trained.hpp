// Chapter 19 · the lesson's part 3: the four mixers trained side by side (math.cpp trains
// them), the table, the loss curves, the memory each keeps, and --measure's times.
#pragma once

#include <chrono>
#include <vector>

#include "chapters/19_linear_attention/math.hpp"
#include "common/lesson/lesson.hpp"

// The wall-clock time of each model's training, from its first logged step to its last
// (heard through the Progress of train_side_by_side); with stderr a terminal, a progress line.
struct TrainingClock {
    std::vector<std::chrono::steady_clock::time_point> first, last;  // [m]
    std::vector<int> steps;                                          // [m] steps between them
    std::function<Progress(std::size_t)> progress();
};

void show_trained(Lesson& lesson, const SideBySide& r);
void show_measured(Lesson& lesson, const SideBySide& r, const TrainingClock& clock);
