#include "chapters/23_inside_the_model/inputs.hpp"

#include <fmt/format.h>

#include "common/lesson/lesson.hpp"
#include "common/math/input_error.hpp"

void add_flags(Lesson& lesson, Flags& f) {
    add_recipe_flags(lesson, f.recipe);
    lesson.option("--text", f.text, "the sentence read through the logit lens (two tokens at least)");
    lesson.option("--clean", f.clean, "patching: the sentence whose heads are copied");
    lesson.option("--corrupt", f.corrupt, "patching: the sentence they are copied into (as many tokens)");
    lesson.option("--layer", f.layer, "the block of the head shown in detail", Range{0, 11});
    lesson.option("--head", f.head, "the head shown in detail",
                  Range{0, 15});
    lesson.option("--windows", f.probe.windows, "held-out windows of T tokens measured, spread evenly",
                  Range{1, 100000});
    lesson.flag("--all-held-out", f.all_held_out, "measure every window of the held-out text");
    lesson.option("--sequences", f.probe.sequences, "random sequences, each repeated, for the induction score",
                  Range{1, 1000});
    lesson.option("--passages", f.probe.passages, "held-out passages, each repeated, for Olsson et al.'s test",
                  Range{1, 1000});
    lesson.option("--probe-seed", f.probe.seed, "seed of the random sequences", Range{0, 999999999});
}

void check_head(const Flags& f, const GptConfig& c) {
    if (f.layer >= c.layers)
        throw InputError(fmt::format("--layer {}: the model has {} block{} (0 … {})", f.layer, c.layers,
                                     c.layers == 1 ? "" : "s", c.layers - 1));
    if (f.head >= c.heads)
        throw InputError(fmt::format("--head {}: the model has {} head{} a block (0 … {})", f.head, c.heads,
                                     c.heads == 1 ? "" : "s", c.heads - 1));
}
