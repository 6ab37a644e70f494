#include "chapters/24_which_attention/trained_variants.hpp"

#include <xtensor/xbuilder.hpp>

void tabulate(TrainedVariants& t, std::size_t windows) {
    const std::size_t K = t.runs.size(), T = cols(t.runs[0].measures.by_position);
    t.loss_by_position = xt::zeros<float>({K, T});
    t.measures = xt::zeros<float>({K, std::size_t(5)});
    t.windows = measured_windows(t.runs[0].lm.held_out_ids(), T, windows);  // every model's (one tokenizer)
    for (std::size_t k = 0; k < K; ++k) {
        const TrainedVariant& v = t.runs[k];
        for (std::size_t i = 0; i < T; ++i) t.loss_by_position(k, i) = v.measures.by_position(0, i);
        const GptConfig& c = v.lm.trained.model.config;
        t.measures(k, 0) = float(parameter_count(c)), t.measures(k, 1) = float(kept_floats(c));
        t.measures(k, 2) = float(v.measures.held_out);
        t.measures(k, 3) = float(v.measures.first_copy), t.measures(k, 4) = float(v.measures.second_copy);
    }
    const std::size_t N = t.runs[0].held_out_by_seed.size();
    t.held_out_by_seed = xt::zeros<float>({K, N});
    for (std::size_t k = 0; k < K; ++k)
        for (std::size_t j = 0; j < N; ++j) t.held_out_by_seed(k, j) = float(t.runs[k].held_out_by_seed[j]);
    t.spread = spread_over_seeds(t.held_out_by_seed);
}
