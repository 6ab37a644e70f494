#include "chapters/16_induction_head/inputs.hpp"

#include <fmt/format.h>

namespace {

// --seed's check (a CLI::Validator): "" for a whole number from 0 to 999999999, else why not.
std::string not_a_seed(std::string& text) {
    return !text.empty() && text.size() < 10 && text.find_first_not_of("0123456789") == std::string::npos
               ? std::string()
               : std::string("expected a whole number from 0 to 999999999");
}

}  // namespace

void add_flags(CLI::App& cli, Flags& f) {
    cli.add_option("--steps", f.s.steps, fmt::format("Adam steps, each on a fresh batch of {} sequences", f.s.batch))
        ->check(CLI::Range(1, 5000))
        ->capture_default_str();
    cli.add_option("--lr", f.s.lr, "Adam's learning rate")->check(CLI::Range(1e-4f, 0.1f))->capture_default_str();
    cli.add_option("--seed", f.s.seed, "seed of the initial weights and of the sequences")
        ->check(CLI::Validator(not_a_seed, ""))
        ->capture_default_str();
    cli.add_option("--heads", f.s.heads, "heads per layer (d_model = 32 splits into 1, 2 or 4)")
        ->check(CLI::IsMember({1, 2, 4}))
        ->capture_default_str();
    cli.add_option("--layers", f.s.layers, "attention layers (1 or 2)")->check(CLI::Range(1, 2))->capture_default_str();
    cli.add_option("--vocab", f.s.vocabulary, "vocabulary size V")->check(CLI::Range(4, 128))->capture_default_str();
    cli.add_option("--half-length", f.s.half_length, "L: tokens in each half (n = 2L)")
        ->check(CLI::Range(4, 32))
        ->capture_default_str();
    cli.add_option("--positions", f.positions, "learned (P is trained) or none (no positional information)")
        ->check(CLI::IsMember({"learned", "none"}))
        ->capture_default_str();
}

Settings settings(const Flags& f) {
    Settings s = f.s;
    s.learned_positions = f.positions == "learned";
    return s;
}
