// Chapter 24 · the models: each variant trained (or read back) with its measures, and the two
// tables they make (the page's and --dump's matrices).
#pragma once

#include <vector>

#include "chapters/24_which_attention/math.hpp"
#include "common/language_model/language_model.hpp"

// One variant trained (or read back) and measured, with each of the seeds.
struct TrainedVariant {
    VariantChoice choice;
    LanguageModel lm;                      // trained with the first seed (--seed)
    VariantMeasures measures;              // of lm
    std::vector<double> held_out_by_seed;  // [j] the held-out loss trained with --seed + j ([0]: lm's)
};

struct TrainedVariants {
    std::vector<TrainedVariant> runs;
    Matrix loss_by_position;  // (variants × T) row k: run k's by_position
    Matrix measures;          // (variants × 5) parameters, kept floats, held out, first copy, second copy
    Matrix windows;           // (W × T + 1) the held-out windows that measured them (token ids)
    Matrix held_out_by_seed;  // (variants × N) row k: run k's held-out loss with each seed
    SeedSpread spread;        // over those seeds: the mean, lowest, highest and rank of each

    // loss_by_position (rows "variants"), measures (rows "variants", columns "measures"), the
    // losses by seed and their spread.
    MatrixList matrices() const {
        return {{"loss_by_position", loss_by_position, "mean held-out loss at each position", "variants", ""},
                {"measures", measures, "parameters, kept, held out, 1st copy, 2nd copy", "variants", "measures"},
                {"held_out_by_seed", held_out_by_seed, "the held-out loss trained with each seed", "variants", "seeds"},
                {"seed_mean", spread.mean, "the mean over the seeds", "variants", ""},
                {"seed_low", spread.low, "the lowest over the seeds", "variants", ""},
                {"seed_high", spread.high, "the highest over the seeds", "variants", ""},
                {"seed_rank", spread.rank, "1 + the variants whose every seed ended lower", "variants", ""},
                {"held_out_windows", windows, "the held-out windows' token ids, T + 1 a row", "", "",
                 MatrixKind::indices}};
    }
};

// The matrices of the runs, filled from them, and the W held-out windows that measured them.
void tabulate(TrainedVariants& t, std::size_t windows);
