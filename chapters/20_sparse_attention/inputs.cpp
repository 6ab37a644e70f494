#include "chapters/20_sparse_attention/inputs.hpp"

#include <fmt/format.h>

#include "common/inputs/sequence.hpp"
#include "common/lesson/lesson.hpp"
#include "common/lesson/threads_option.hpp"

void add_flags(Lesson& lesson, Flags& f) {
    const std::size_t n = 2 * CopyTaskSettings().half_length;
    lesson.option("--window", f.window, "w: each query reads the last w tokens, itself included", Range{1, double(n)});
    lesson.option("--sinks", f.sinks, "s: the first s tokens, read by every query", Range{0, double(n - 1)});
    lesson.option("--top-k", f.top_k, "k: the keys each query keeps, by the indexer's score", Range{1, double(n)});
    lesson.option("--rank", f.rank, "r: the indexer's width, its scores the best rank-r copy of the head's",
                  Range{1, double(CopyTaskSettings().d_model)});
    lesson.option("--seed", f.seed, "seed of the initial weights and of the sequences of every training",
                  Range{0, 999999999});
    lesson.option("--steps", f.steps, "Adam steps of every training", Range{1, 5000});
    add_threads_option(lesson);  // the trainings side by side, one model a thread
    refuse_text(lesson, "its copy models are trained on random tokens and have never read text");
}

Variant chosen_variant(const Flags& f) {
    Variant v;
    v.window = f.window, v.sinks = f.sinks, v.top_k = f.top_k, v.indexer_rank = f.rank;
    return v;
}

CopyTaskSettings copy_task_settings(const Flags& f) {
    CopyTaskSettings s;
    s.steps = f.steps, s.seed = f.seed, s.heads = model_heads;
    return s;
}
