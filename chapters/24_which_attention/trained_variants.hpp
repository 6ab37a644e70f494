// Chapter 24 · the models: each variant trained (or read back) with its measures, and the two
// tables they make (the page's and --dump's matrices).
#pragma once

#include <vector>

#include "chapters/24_which_attention/math.hpp"
#include "common/language_model/language_model.hpp"

// One variant trained (or read back) and measured.
struct TrainedVariant {
    VariantChoice choice;
    LanguageModel lm;
    VariantMeasures measures;
};

struct TrainedVariants {
    std::vector<TrainedVariant> runs;
    Matrix loss_by_position;  // (variants × T) row k: run k's by_position
    Matrix measures;          // (variants × 5) parameters, kept floats, held out, first copy, second copy
    Matrix windows;           // (W × T + 1) the held-out windows that measured them (token ids)

    // loss_by_position (rows "variants"), measures (rows "variants", columns "measures").
    MatrixList matrices() const {
        return {{"loss_by_position", loss_by_position, "mean held-out loss at each position", "variants", ""},
                {"measures", measures, "parameters, kept, held out, 1st copy, 2nd copy", "variants", "measures"},
                {"held_out_windows", windows, "the held-out windows' token ids, T + 1 a row", "", "",
                 MatrixKind::indices}};
    }
};

// The matrices of the runs, filled from them, and the W held-out windows that measured them.
void tabulate(TrainedVariants& t, std::size_t windows);
