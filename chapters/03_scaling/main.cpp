// Chapter 03 · Scaling by √d_k
//
// The lesson: what math.cpp measured, shown step by step (the variance of q · k
// against d_k, one sample before and after scaling, the two-key example, the
// saturation of the softmax), then checked against the closed forms, finite
// differences and the attention weights recomputed in double.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/03_scaling/checks.hpp"
#include "chapters/03_scaling/math.hpp"
#include "common/display/text_table.hpp"
#include "common/inputs/sequence.hpp"
#include "common/lesson/lesson.hpp"
#include "common/machine/machine_memory.hpp"

namespace {

// Step: the variance table.
void show_variances(Lesson& lesson, std::size_t pairs, const ScaledAndUnscaled& r) {
    lesson.say(fmt::format(
        "Draw q and k with independent N(0, 1) entries. Each product q_d · k_d has mean 0\n"
        "and variance 1, and q · k adds d_k of them, so var(q · k) = d_k. Measured over\n"
        "{} random pairs for each d_k (± is the self-checks' tolerance: 6 standard errors\n"
        "of the sample variance, widened for its skew):",
        pairs));
    std::vector<TextRow> table;
    for (const VarianceRow& v : r.variances)
        table.push_back({std::to_string(v.d_k), format_number(float(v.variance), 2),
                         fmt::format("{} ± {}", v.d_k, format_number(float(v.tolerance * v.standard_error), 2)),
                         format_number(float(v.scaled_variance), 3),
                         "1 ± " + format_number(float(v.tolerance * v.standard_error / double(v.d_k)), 3)});
    lesson.table({"d_k", "var(q·k)", "expected", "var(q·k / √d_k)", "expected"}, table);
    lesson.say(
        "The standard deviation of a score is √d_k: about 8 for d_k = 64, 22.6 for 512.\n"
        "Dividing by √d_k gives every width scores of variance 1.");
}

// Step: the two keys of scores 112 and 96, before and after dividing by √64.
void show_classic(Lesson& lesson, const ScaledAndUnscaled& r) {
    std::vector<TextRow> classic;
    for (std::size_t j = 0; j < 2; ++j)
        classic.push_back({fmt::format("k{}", j + 1), format_number(r.classic_scores(0, j), 0),
                           format_number(r.classic_unscaled_weights(0, j), 3), format_number(r.classic_scaled(0, j), 0),
                           format_number(r.classic_weights(0, j), 3)});
    lesson.table({"key", "score", "softmax(score)", "score / √64", "softmax(score / √64)"}, classic);
    const double gap = double(r.classic_scaled(0, 0) - r.classic_scaled(0, 1));  // 2
    lesson.say(
        fmt::format("Unscaled, a gap of 16 gives the second key exp(−16) = {:.1e} of the weight of the\n"
                    "first: nothing. Scaled, the gap is 2 and the weights are 1/(1 + e⁻²) = {} and {}.",
                    std::exp(-16.0), format_number(float(1.0 / (1.0 + std::exp(-gap))), 2),
                    format_number(float(1.0 - 1.0 / (1.0 + std::exp(-gap))), 2)));
}

// Step: entropy, largest weight and ‖J‖ for every d_k, unscaled and scaled.
void show_saturation(Lesson& lesson, const ScaledAndUnscaled& r) {
    const std::size_t m = r.saturation_keys;
    lesson.say(fmt::format(
        "For each d_k: {} random queries against {} random keys. Entropy is −Σ p ln p\n"
        "(ln {} = {} for equal weights, 0 for one-hot). ‖J‖ is the size of the softmax\n"
        "Jacobian J = diag(p) − p pᵀ, how much the weights move when the scores move: the\n"
        "gradient that reaches Q and K during training is multiplied by it. Each measure\n"
        "appears twice: for softmax(q · k), then for softmax(q · k / √d_k).",
        r.saturation_queries, m, m, format_number(float(std::log(double(m))), 3)));
    std::vector<TextRow> table;
    std::vector<double> xs, entropy, entropy_scaled;
    for (const SaturationRow& s : r.saturation) {
        table.push_back({std::to_string(s.d_k), format_number(float(s.entropy), 3),
                         format_number(float(s.entropy_scaled), 3), format_number(float(s.largest), 3),
                         format_number(float(s.largest_scaled), 3), format_number(float(s.jacobian), 4),
                         format_number(float(s.jacobian_scaled), 4)});
        xs.push_back(double(s.d_k));
        entropy.push_back(s.entropy);
        entropy_scaled.push_back(s.entropy_scaled);
    }
    lesson.table({"d_k", "entropy", "scaled", "largest weight", "scaled", "‖J‖", "scaled"}, table);
    lesson.plot("saturation", "Mean entropy of the weights against d_k (16 keys)",
                {"d_k (width of queries and keys)", true}, {"mean entropy (nats)", false},
                {{"softmax(q · k / √d_k)", xs, entropy_scaled}, {"softmax(q · k)", xs, entropy}});
    lesson.say(
        "Unscaled, the wider the head the more one-hot the rows and the smaller ‖J‖: the\n"
        "attention stops learning. Scaled, all three columns stay where they are for every d_k.");
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson;  // named and titled by chapter.toml
    std::uint64_t seed = 3;
    std::size_t pairs = 4000;
    std::size_t max_d_k = 512;
    lesson.option("--seed", seed, "seed of the random queries and keys");
    lesson.option("--n", pairs, "random (q, k) pairs per d_k for the variance table", Range{100, 1000000});
    lesson.option("--max-d-k", max_d_k, "the tables double d_k from 4 up to this", Range{4, 4096});
    refuse_text(lesson, "the variance of q · k is measured on random vectors of every width d_k, not on one sentence");

    return lesson.run(argc, argv, [&] {
        // The widest sweep holds q and k, two (pairs × max_d_k) matrices: refuse what cannot fit.
        require_memory(fmt::format("--n {} --max-d-k {}", pairs, max_d_k), bytes_of_floats({2, pairs, max_d_k}),
                       memory_limit_bytes());
        const ScaledAndUnscaled r = scaled_and_unscaled(seed, pairs, max_d_k);
        lesson.labels("tokens", numbered("t", rows(r.Q)));
        lesson.labels("dimensions", numbered("d", cols(r.Q)));
        lesson.list(r.matrices());

        lesson.step("variance", "The variance of q · k grows like d_k", [&] { show_variances(lesson, pairs, r); });
        lesson.step("sample", fmt::format("One sample: {} tokens, d_k = {}", rows(r.Q), cols(r.Q)), [&] {
            for (const Matrix* m : {&r.Q, &r.K, &r.scores, &r.scaled_scores}) lesson.show(*m, Style().decimals(2));
            lesson.show(r.weights_unscaled, Style().svg());
            lesson.show(r.weights, Style().svg());
            lesson.say(
                "Unscaled, the scores of a row lie some 10 apart (their standard deviation is\n"
                "√64 = 8), so most rows are nearly one-hot: each query sees a single key. Scaled\n"
                "by 1/8 they lie about 1 apart, and every row still weighs several keys.");
        });
        lesson.step("two-keys", "Two keys, d_k = 64: scores 112 and 96", [&] { show_classic(lesson, r); });
        lesson.step("saturation", "Without scaling the softmax saturates, and its gradient vanishes",
                    [&] { show_saturation(lesson, r); });
        lesson.step("checks", "Self-checks", [&] { check_scaling(lesson.checks(), r); });
        lesson.present();
    });
}
