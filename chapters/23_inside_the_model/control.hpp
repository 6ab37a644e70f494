// Chapter 23 · the control: the same recipe trained on the other book (the plain book for a
// model trained with repeats, and the other way round), measured as the model is, side by side.
#pragma once

#include "chapters/23_inside_the_model/kept_measurements.hpp"
#include "common/display/terminal_chart.hpp"
#include "common/language_model/language_model.hpp"

class Lesson;

// The control, trained or read back, and what it shows beside the model: its heads' scores and
// removals, its composition.
struct Control {
    LanguageModel model;
    double repeats = 0.0;     // its recipe's share of windows given a repeated passage
    Measurements measured;
    Composition composition;  // none with one block

    // Its parameters as "control." + nanoGPT's names, its training log and its measurements as "control_" + theirs.
    MatrixList matrices() const;
};
Control measure_control(LanguageModel control, double repeats, const Probe& probe);

// The frame of a chart along a training's logged steps (steps 6 and 9): ticks at 0, the middle, the end.
ChartOptions chart_along_training(std::size_t last_step);

// The model and its control, one column each, and both induction scores along the training.
void show_control(Lesson& lesson, const LanguageModel& lm, double repeats, const Measurements& model,
                  const Composition& composition, const Control& control);
