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

#include "chapters/03_scaling/math.hpp"
#include "common/lesson/lesson.hpp"
#include "common/lesson/machine_memory.hpp"
#include "common/lesson/text_table.hpp"
#include "common/math/softmax.hpp"

namespace {

// Step: the variance table.
void show_variances(Lesson& lesson, std::size_t pairs, const ScalingLesson& r) {
    lesson.say(fmt::format(
        "Draw q and k with independent N(0, 1) entries. Each product q_d · k_d has mean 0\n"
        "and variance 1, and q · k adds d_k of them, so var(q · k) = d_k. Measured over\n"
        "{} random pairs for each d_k (± is the self-checks' tolerance: 6 standard errors\n"
        "of the sample variance, widened for its skew):",
        pairs));
    std::vector<TextRow> table;
    for (const VarianceRow& v : r.variances)
        table.push_back({std::to_string(v.d_k), fmt::format("{:.2f}", v.variance),
                         fmt::format("{} ± {:.2f}", v.d_k, v.tolerance * v.standard_error),
                         fmt::format("{:.3f}", v.scaled_variance),
                         fmt::format("1 ± {:.3f}", v.tolerance * v.standard_error / double(v.d_k))});
    lesson.table({"d_k", "var(q·k)", "expected", "var(q·k / √d_k)", "expected"}, table);
    lesson.say(
        "The standard deviation of a score is √d_k: about 8 for d_k = 64, 22.6 for 512.\n"
        "Dividing by √d_k gives every width scores of variance 1.");
}

// Step: the two keys of scores 112 and 96, before and after dividing by √64.
void show_classic(Lesson& lesson, const ScalingLesson& r) {
    std::vector<TextRow> classic;
    for (std::size_t j = 0; j < 2; ++j)
        classic.push_back({fmt::format("k{}", j + 1), fmt::format("{:.0f}", r.classic_scores(0, j)),
                           fmt::format("{:.3f}", r.classic_unscaled_weights(0, j)),
                           fmt::format("{:.0f}", r.classic_scaled(0, j)),
                           fmt::format("{:.3f}", r.classic_weights(0, j))});
    lesson.table({"key", "score", "softmax(score)", "score / √64", "softmax(score / √64)"}, classic);
    const double gap = double(r.classic_scaled(0, 0) - r.classic_scaled(0, 1));  // 2
    lesson.say(
        fmt::format("Unscaled, a gap of 16 gives the second key exp(−16) = {:.1e} of the weight of the\n"
                    "first: nothing. Scaled, the gap is 2 and the weights are 1/(1 + e⁻²) = {:.2f} and {:.2f}.",
                    std::exp(-16.0), 1.0 / (1.0 + std::exp(-gap)), 1.0 - 1.0 / (1.0 + std::exp(-gap))));
}

// Step: entropy, largest weight and ‖J‖ for every d_k, unscaled and scaled.
void show_saturation(Lesson& lesson, const ScalingLesson& r) {
    const std::size_t m = r.saturation_keys;
    lesson.say(fmt::format(
        "For each d_k: {} random queries against {} random keys. Entropy is −Σ p ln p\n"
        "(ln {} = {:.3f} for equal weights, 0 for one-hot). ‖J‖ is the size of the softmax\n"
        "Jacobian J = diag(p) − p pᵀ, how much the weights move when the scores move: the\n"
        "gradient that reaches Q and K during training is multiplied by it. Each measure\n"
        "appears twice: for softmax(q · k), then for softmax(q · k / √d_k).",
        r.saturation_queries, m, m, std::log(double(m))));
    std::vector<TextRow> table;
    std::vector<double> xs, entropy, entropy_scaled;
    for (const SaturationRow& s : r.saturation) {
        table.push_back({std::to_string(s.d_k), fmt::format("{:.3f}", s.entropy),
                         fmt::format("{:.3f}", s.entropy_scaled), fmt::format("{:.3f}", s.largest),
                         fmt::format("{:.3f}", s.largest_scaled), fmt::format("{:.4f}", s.jacobian),
                         fmt::format("{:.4f}", s.jacobian_scaled)});
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

// softmax(q_i · k_j / √d_k) of the sample, from Q and K, in double: an
// independent computation of the attention weights (no matmul, no softmax_rows).
double weights_error_against_double(const ScalingLesson& r) {
    const std::size_t n = rows(r.Q), m = rows(r.K), d_k = cols(r.Q);
    double worst = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<double> p(m);
        double top = -INFINITY, sum = 0.0;
        for (std::size_t j = 0; j < m; ++j) {
            for (std::size_t d = 0; d < d_k; ++d) p[j] += double(r.Q(i, d)) * r.K(j, d);
            p[j] /= std::sqrt(double(d_k));
            top = std::max(top, p[j]);
        }
        for (double& x : p) sum += x = std::exp(x - top);
        for (std::size_t j = 0; j < m; ++j) {
            const double d = std::abs(p[j] / sum - r.weights(i, j));
            worst = std::isnan(d) ? INFINITY : std::max(worst, d);
        }
    }
    return worst;
}

// Each claim against something computed another way.
void check(SelfChecks& check, const ScalingLesson& r) {
    // Errors in standard errors (of var(q·k) = d_k, and of the scaled variance = 1,
    // whose standard error is d_k times smaller), against each d_k's own tolerance:
    // the row that comes closest to its tolerance is the one reported.
    std::size_t worst = 0, worst_scaled = 0;
    auto error = [](const VarianceRow& v) { return std::abs(v.variance - double(v.d_k)) / v.standard_error; };
    auto error_scaled = [](const VarianceRow& v) {
        return std::abs(v.scaled_variance - 1.0) / (v.standard_error / double(v.d_k));
    };
    for (std::size_t k = 0; k < r.variances.size(); ++k) {
        const VarianceRow& v = r.variances[k];
        if (error(v) / v.tolerance > error(r.variances[worst]) / r.variances[worst].tolerance) worst = k;
        if (error_scaled(v) / v.tolerance > error_scaled(r.variances[worst_scaled]) / r.variances[worst_scaled].tolerance)
            worst_scaled = k;
    }
    check.close(fmt::format("var(q·k) = d_k for d_k = 4 … {}, in standard errors", r.variances.back().d_k),
                error(r.variances[worst]), r.variances[worst].tolerance);
    check.close("var(q·k / √d_k) = 1 for every d_k, in standard errors", error_scaled(r.variances[worst_scaled]),
                r.variances[worst_scaled].tolerance);
    check.close("112 and 96 over √64 give weights 0.88 and 0.12 (2 decimals)",
                std::max(std::abs(r.classic_weights(0, 0) - 0.88), std::abs(r.classic_weights(0, 1) - 0.12)), 0.005);
    check.close("unscaled they give 1.000 and 0.000 (to 3 decimals)",
                std::max(std::abs(r.classic_unscaled_weights(0, 0) - 1.0), double(r.classic_unscaled_weights(0, 1))),
                0.0005);
    check.close("weights = softmax(q · k / √d_k), looped in double", weights_error_against_double(r), 1e-5);
    check.close("rows of the sample weights sum to 1",
                std::max(worst_row_sum_error(r.weights), worst_row_sum_error(r.weights_unscaled)), 1e-6);
    // ‖J‖ by finite differences of softmax_rows, for the first row of the sample.
    const float h = 1e-2f;
    const std::size_t n = rows(r.scores);
    double worst_jacobian = 0.0;
    for (std::size_t l = 0; l < n; ++l) {
        Matrix up = r.scaled_scores, down = r.scaled_scores;  // (n × n)
        up(0, l) += h;
        down(0, l) -= h;
        const Matrix p_up = softmax_rows(up), p_down = softmax_rows(down);
        for (std::size_t j = 0; j < n; ++j) {
            const double numeric = (double(p_up(0, j)) - p_down(0, j)) / (2.0 * h);
            const double formula = (j == l ? r.weights(0, j) : 0.0) - double(r.weights(0, j)) * r.weights(0, l);
            worst_jacobian = std::max(worst_jacobian, std::abs(numeric - formula));
        }
    }
    check.close("diag(p) − p pᵀ matches finite differences of softmax_rows", worst_jacobian, 1e-3);
    const auto [lowest, highest] = std::minmax_element(r.saturation.begin(), r.saturation.end(),
                                                       [](const SaturationRow& a, const SaturationRow& b) {
                                                           return a.entropy_scaled < b.entropy_scaled;
                                                       });
    check.that(fmt::format("scaled, the mean entropy stays within 15% for every d_k ({:.3f} to {:.3f})",
                           lowest->entropy_scaled, highest->entropy_scaled),
               highest->entropy_scaled <= 1.15 * lowest->entropy_scaled);
    const SaturationRow &first = r.saturation.front(), &last = r.saturation.back();
    if (last.d_k >= 64)  // at small d_k the difference is within the noise
        check.that(fmt::format("unscaled, the largest weight grows ({:.3f} at d_k = 4, {:.3f} at d_k = {}) and "
                               "‖J‖ shrinks",
                               first.largest, last.largest, last.d_k),
                   last.largest > first.largest && last.jacobian < first.jacobian);
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch03_scaling", "Chapter 03 · Scaling by √d_k");
    std::uint64_t seed = 3;
    std::size_t pairs = 4000;
    std::size_t max_d_k = 512;
    lesson.cli().add_option("--seed", seed, "seed of the random queries and keys")->capture_default_str();
    lesson.cli()
        .add_option("--n", pairs, "random (q, k) pairs per d_k for the variance table")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{100}, std::size_t{1000000}));
    lesson.cli()
        .add_option("--max-d-k", max_d_k, "the tables double d_k from 4 up to this")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{4}, std::size_t{4096}));

    return lesson.run(argc, argv, [&] {
        // The widest sweep holds q and k, two (pairs × max_d_k) matrices: refuse what cannot fit.
        require_memory(fmt::format("--n {} --max-d-k {}", pairs, max_d_k), bytes_of_floats({2, pairs, max_d_k}),
                       memory_limit_bytes());
        const ScalingLesson r = scaling_lesson(seed, pairs, max_d_k);
        const Labels tokens = numbered("t", rows(r.Q)), features = numbered("d", cols(r.Q));

        lesson.step("variance", "The variance of q · k grows like d_k", [&] { show_variances(lesson, pairs, r); });
        lesson.step("sample", fmt::format("One sample: {} tokens, d_k = {}", rows(r.Q), cols(r.Q)), [&] {
            lesson.show("Q", r.Q, ShowAs("N(0, 1)").labels(tokens, features).decimals(2));
            lesson.show("K", r.K, ShowAs("N(0, 1)").labels(tokens, features).decimals(2));
            lesson.show("scores", r.scores, ShowAs("Q · Kᵀ").labels(tokens, tokens).decimals(2));
            lesson.show("scaled_scores", r.scaled_scores, ShowAs("Q · Kᵀ / √64").labels(tokens, tokens).decimals(2));
            lesson.show("weights_unscaled", r.weights_unscaled,
                        ShowAs("softmax(Q · Kᵀ)").labels(tokens, tokens).heat_map());
            lesson.show("weights", r.weights, ShowAs("softmax(Q · Kᵀ / √64)").labels(tokens, tokens).heat_map());
            lesson.say(
                "Unscaled, the scores of a row lie some 10 apart (their standard deviation is\n"
                "√64 = 8), so most rows are nearly one-hot: each query sees a single key. Scaled\n"
                "by 1/8 they lie about 1 apart, and every row still weighs several keys.");
        });
        lesson.step("two-keys", "Two keys, d_k = 64: scores 112 and 96", [&] { show_classic(lesson, r); });
        lesson.step("saturation", "Without scaling the softmax saturates, and its gradient vanishes",
                    [&] { show_saturation(lesson, r); });
        lesson.step("checks", "Self-checks", [&] { check(lesson.checks(), r); });
        lesson.present();
    });
}
