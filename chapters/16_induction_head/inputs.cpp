#include "chapters/16_induction_head/inputs.hpp"

#include <fmt/format.h>

#include "common/lesson/lesson.hpp"

void add_flags(Lesson& lesson, Flags& f) {
    lesson.option("--steps", f.s.steps, fmt::format("Adam steps, each on a fresh batch of {} sequences", f.s.batch),
                  Range{1, 5000});
    lesson.option("--lr", f.s.lr, "Adam's learning rate", Range{1e-4, 0.1});
    lesson.option("--seed", f.s.seed, "seed of the initial weights and of the sequences", Range{0, 999999999});
    lesson.option("--heads", f.s.heads, "heads per layer (d_model = 32 splits into 1, 2 or 4)", Choices{"1", "2", "4"});
    lesson.option("--layers", f.s.layers, "attention layers", Range{1, 2});
    lesson.option("--vocab", f.s.vocabulary, "vocabulary size V", Range{4, 128});
    lesson.option("--half-length", f.s.half_length, "L: tokens in each half (n = 2L)", Range{4, 32});
    lesson.option("--positions", f.positions, "learned (P is trained) or none (no positional information)",
                  Choices{"learned", "none"});
}

Settings settings(const Flags& f) {
    Settings s = f.s;
    s.learned_positions = f.positions == "learned";
    return s;
}
