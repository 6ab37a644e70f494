#include "chapters/22_small_gpt/inputs.hpp"

#include "common/language_model/page_model.hpp"
#include "common/lesson/lesson.hpp"

void add_flags(Lesson& lesson, Flags& f) {
    add_recipe_flags(lesson, f.recipe);
    lesson.option("--text", f.text, "the sentence the model reads (its attention, its predictions)");
    carry_trained_model(lesson);  // a sentence in the page goes through this model
    lesson.option("--prompt", f.prompt, "the text samples start from");
    lesson.option("--temperature", f.temperature, "τ: logits / τ before sampling", Range{0.01, 10});
    lesson.option("--top-k", f.top_k, "sample among the k most likely tokens (0: all)", Range{0, 1024});
    lesson.option("--sample-tokens", f.sample_tokens, "tokens sampled after the prompt", Range{1, 1000});
    lesson.option("--top-p", f.top_p, "sample among the most likely tokens whose probabilities add up to p (1: all)",
                  Range{0.001, 1});
    lesson.option("--sample-seed", f.sample_seed, "seed of the sampling", Range{0, 999999999});
    lesson.option("--generate", f.generate,
                  "write N tokens after --prompt one at a time, each shown: its odds, its pick, its attention (0: none)",
                  Range{0, 1024})
        .one_more("next token", "writing");
    lesson.flag("--greedy", f.greedy, "take the most likely token each time (samples and --generate)");
    lesson.option("--layer", f.layer, "the block whose heads the terminal prints on --text (--svg, --html: every block's)",
                  Range{0, 11});
}
