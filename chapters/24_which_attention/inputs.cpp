#include "chapters/24_which_attention/inputs.hpp"

#include "chapters/24_which_attention/math.hpp"
#include "common/lesson/lesson.hpp"

Recipe variants_recipe() {
    Recipe r = default_recipe();
    r.gpt.config.d_model = 64;
    r.gpt.steps = 400;
    r.log_every = r.gpt.steps;
    return r;
}

void add_flags(Lesson& lesson, Flags& f) {
    add_recipe_flags(lesson, f.recipe);
    lesson.option("--windows", f.windows, "held-out windows of T + 1 tokens that measure each model", Range{1, 2000});
    lesson.option("--passages", f.passages, "held-out passages of T/2 tokens, each written twice (recall)",
                  Range{1, 400});
    lesson.option("--seeds", f.seeds,
                  "seeds each variant is trained with (--seed, --seed + 1, …): their spread decides which gaps "
                  "the table ranks", Range{1, 16});
    lesson.option("--variant", f.variant, "the variant whose reading of --text is shown", Choices(variant_flags()));
    lesson.option("--text", f.text, "the sentence the variant reads (its heads' weights, its next tokens)");
    lesson.flag("--measure", f.measure, "also time each variant's training step, a window's reading and a token's decoding (output varies)");
}
