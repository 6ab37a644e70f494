// Chapter 03 · Scaling by √d_k
//
// Why attention divides its scores by √d_k before the softmax:
//
//   weights = softmax(Q · Kᵀ / √d_k)
//
// If the entries of a query q and a key k are independent with mean 0 and
// variance 1, then q · k = Σ_d q_d k_d is a sum of d_k independent products of
// variance 1, so var(q · k) = d_k: the wider the head, the larger the scores.
// Large scores saturate the softmax (one weight near 1, the rest near 0), and a
// saturated softmax has almost no gradient to learn from. Dividing by √d_k
// brings the variance back to 1 for every d_k.
//
// Shapes: Q (n × d_k), K (m × d_k); scores, scaled_scores, weights (n × m).
// Here n queries and m keys are random rows, from the project's own generator.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/lesson/lesson.hpp"
#include "common/math/matmul.hpp"
#include "common/math/random.hpp"
#include "common/math/softmax.hpp"
#include "common/lesson/text_table.hpp"
#include "common/math/weight_entropy.hpp"

namespace {

// Tolerance of the variance checks, in standard errors: a correct program
// fails one check by chance with probability about 6e-5.
constexpr double standard_errors = 4.0;

struct VarianceRow {
    std::size_t d_k;
    double variance;         // sample variance of q · k over the pairs
    double scaled_variance;  // sample variance of q · k / √d_k
    double standard_error;   // of the sample variance, from the closed form
};

// The sample variance of xs (divided by count − 1), accumulated in double.
double sample_variance(const std::vector<float>& xs) {
    double mean = 0.0;
    for (const float x : xs) mean += x;
    mean /= double(xs.size());
    double sum = 0.0;
    for (const float x : xs) sum += (x - mean) * (x - mean);
    return sum / double(xs.size() - 1);
}

// q · k for `pairs` independent pairs of random vectors of width d_k.
VarianceRow measure_variance(Random& random, std::size_t d_k, std::size_t pairs) {
    const Matrix q = random.normal_matrix(pairs, d_k);  // (pairs × d_k)
    const Matrix k = random.normal_matrix(pairs, d_k);  // (pairs × d_k)
    const float scale = 1.0f / std::sqrt(float(d_k));
    std::vector<float> dots(pairs), scaled(pairs);
    for (std::size_t p = 0; p < pairs; ++p) {
        float dot = 0.0f;  // float32, as a model computes it
        for (std::size_t d = 0; d < d_k; ++d) dot += q(p, d) * k(p, d);
        dots[p] = dot;
        scaled[p] = dot * scale;
    }
    // The sample variance s² of N values with variance σ² and fourth moment μ₄
    // has var(s²) = (μ₄ − σ⁴ (N − 3)/(N − 1)) / N. For q · k with N(0, 1)
    // entries: σ² = d_k and μ₄ = 3 d_k² + 6 d_k (each product has E[(q_d k_d)⁴] = 9).
    const double d = double(d_k), n = double(pairs);
    const double mu4 = 3.0 * d * d + 6.0 * d;
    const double se = std::sqrt((mu4 - d * d * (n - 3.0) / (n - 1.0)) / n);
    return {d_k, sample_variance(dots), sample_variance(scaled), se};
}

// ‖J‖_F of the softmax Jacobian of one row, J = diag(p) − p pᵀ: how much the
// weights can move when the scores move. 0 for a one-hot row.
double jacobian_norm(const Matrix& weights, std::size_t i) {
    double sum = 0.0;
    for (std::size_t j = 0; j < cols(weights); ++j)
        for (std::size_t l = 0; l < cols(weights); ++l) {
            const double entry = (j == l ? weights(i, j) : 0.0) - double(weights(i, j)) * weights(i, l);
            sum += entry * entry;
        }
    return std::sqrt(sum);
}

double mean_jacobian_norm(const Matrix& weights) {
    double sum = 0.0;
    for (std::size_t i = 0; i < rows(weights); ++i) sum += jacobian_norm(weights, i);
    return sum / double(rows(weights));
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
        Random random(seed);
        std::vector<std::size_t> widths;  // d_k = 4, 8, 16, …, ≤ max_d_k
        for (std::size_t d = 4; d <= max_d_k; d *= 2) widths.push_back(d);

        // ── Step 1: the variance of q · k grows like d_k ────────────────────
        lesson.step("The variance of q · k grows like d_k");
        lesson.say(fmt::format(
            "Draw q and k with independent N(0, 1) entries. Each product q_d · k_d has mean 0\n"
            "and variance 1, and q · k adds d_k of them, so var(q · k) = d_k. Measured over\n"
            "{} random pairs for each d_k (± is {} standard errors of the sample variance):",
            pairs, standard_errors));
        std::vector<VarianceRow> variances;
        std::vector<TextRow> table;
        for (const std::size_t d_k : widths) {
            variances.push_back(measure_variance(random, d_k, pairs));
            const VarianceRow& v = variances.back();
            table.push_back({std::to_string(d_k), fmt::format("{:.2f}", v.variance),
                             fmt::format("{} ± {:.2f}", d_k, standard_errors * v.standard_error),
                             fmt::format("{:.3f}", v.scaled_variance),
                             fmt::format("1 ± {:.3f}", standard_errors * v.standard_error / double(d_k))});
        }
        fmt::print("\n{}", format_table({"d_k", "var(q·k)", "expected", "var(q·k / √d_k)", "expected"}, table));
        lesson.say(
            "\nThe standard deviation of a score is √d_k: about 8 for d_k = 64, 22.6 for 512.\n"
            "Dividing by √d_k gives every width scores of variance 1.");

        // ── Step 2: one sample, d_k = 64 ────────────────────────────────────
        const std::size_t n = 6, d_k = 64;
        lesson.step(fmt::format("One sample: {} tokens, d_k = {}", n, d_k));
        const Labels tokens = numbered("t", n);
        const Labels features = numbered("d", d_k);
        const Matrix Q = random.normal_matrix(n, d_k);  // (n × d_k)
        const Matrix K = random.normal_matrix(n, d_k);  // (n × d_k)
        lesson.show("Q", "N(0, 1)", Q, tokens, features, 2);
        lesson.show("K", "N(0, 1)", K, tokens, features, 2);
        const Matrix scores = matmul_transposed(Q, K);                     // (n × n)
        const Matrix scaled_scores = scores / std::sqrt(float(d_k));       // (n × n)
        const Matrix weights_unscaled = softmax_rows(scores);              // (n × n)
        const Matrix weights = softmax_rows(scaled_scores);                // (n × n)
        lesson.show("scores", "Q · Kᵀ", scores, tokens, tokens, 2);
        lesson.show("scaled_scores", "Q · Kᵀ / √64", scaled_scores, tokens, tokens, 2);
        lesson.show("weights_unscaled", "softmax(Q · Kᵀ)", weights_unscaled, tokens, tokens);
        lesson.show("weights", "softmax(Q · Kᵀ / √64)", weights, tokens, tokens);
        lesson.say(
            "\nUnscaled, the scores of a row lie some 10 apart (their standard deviation is\n"
            "√64 = 8), so most rows are nearly one-hot: each query sees a single key. Scaled\n"
            "by 1/8 they lie about 1 apart, and every row still weighs several keys.");

        // ── Step 3: the classic two-key example ─────────────────────────────
        lesson.step("Two keys, d_k = 64: scores 112 and 96");
        const Matrix classic_scores = {{112.0f, 96.0f}};                // (1 × 2)
        const Matrix classic_scaled = classic_scores / 8.0f;            // (1 × 2), √64 = 8
        const Matrix classic_unscaled_weights = softmax_rows(classic_scores);
        const Matrix classic_weights = softmax_rows(classic_scaled);
        std::vector<TextRow> classic;
        for (std::size_t j = 0; j < 2; ++j)
            classic.push_back({fmt::format("k{}", j + 1), fmt::format("{:.0f}", classic_scores(0, j)),
                               fmt::format("{:.3f}", classic_unscaled_weights(0, j)),
                               fmt::format("{:.0f}", classic_scaled(0, j)),
                               fmt::format("{:.3f}", classic_weights(0, j))});
        fmt::print("\n{}", format_table({"key", "score", "softmax(score)", "score / √64", "softmax(score / √64)"},
                                        classic));
        lesson.say(fmt::format(
            "\nUnscaled, a gap of 16 gives the second key exp(−16) = {:.1e} of the weight of the\n"
            "first: nothing. Scaled, the gap is 2 and the weights are 1/(1 + e⁻²) = {:.2f} and {:.2f}.",
            std::exp(-16.0), 1.0 / (1.0 + std::exp(-2.0)), 1.0 - 1.0 / (1.0 + std::exp(-2.0))));

        // ── Step 4: saturation and vanishing gradients ──────────────────────
        const std::size_t m = 16, queries = 256;
        lesson.step("Without scaling the softmax saturates, and its gradient vanishes");
        lesson.say(fmt::format(
            "For each d_k: {} random queries against {} random keys. Entropy is −Σ p ln p\n"
            "(ln {} = {:.3f} for equal weights, 0 for one-hot). ‖J‖ is the size of the softmax\n"
            "Jacobian J = diag(p) − p pᵀ, how much the weights move when the scores move: the\n"
            "gradient that reaches Q and K during training is multiplied by it. Each measure\n"
            "appears twice: for softmax(q · k), then for softmax(q · k / √d_k).",
            queries, m, m, std::log(double(m))));
        std::vector<TextRow> saturation;
        std::vector<double> entropy_unscaled, entropy_scaled, largest_unscaled, jacobian_unscaled, jacobian_scaled;
        for (const std::size_t width : widths) {
            const Matrix q = random.normal_matrix(queries, width);  // (queries × d_k)
            const Matrix k = random.normal_matrix(m, width);        // (m × d_k)
            const Matrix s = matmul_transposed(q, k);               // (queries × m)
            const Matrix p_unscaled = softmax_rows(s);
            const Matrix p_scaled = softmax_rows(s / std::sqrt(float(width)));
            entropy_unscaled.push_back(mean_row_entropy(p_unscaled));
            entropy_scaled.push_back(mean_row_entropy(p_scaled));
            largest_unscaled.push_back(mean_row_largest(p_unscaled));
            jacobian_unscaled.push_back(mean_jacobian_norm(p_unscaled));
            jacobian_scaled.push_back(mean_jacobian_norm(p_scaled));
            saturation.push_back({std::to_string(width), fmt::format("{:.3f}", entropy_unscaled.back()),
                                  fmt::format("{:.3f}", entropy_scaled.back()),
                                  fmt::format("{:.3f}", largest_unscaled.back()),
                                  fmt::format("{:.3f}", mean_row_largest(p_scaled)),
                                  fmt::format("{:.4f}", jacobian_unscaled.back()),
                                  fmt::format("{:.4f}", jacobian_scaled.back())});
        }
        fmt::print("\n{}", format_table({"d_k", "entropy", "scaled", "largest weight", "scaled", "‖J‖", "scaled"},
                                        saturation));
        const std::vector<double> xs(widths.begin(), widths.end());
        lesson.plot("saturation", "Mean entropy of the weights against d_k (16 keys)",
                    {"d_k (width of queries and keys)", true}, {"mean entropy (nats)", false},
                    {{"softmax(q · k / √d_k)", xs, entropy_scaled}, {"softmax(q · k)", xs, entropy_unscaled}});
        lesson.say(
            "\nUnscaled, the wider the head the more one-hot the rows and the smaller ‖J‖: the\n"
            "attention stops learning. Scaled, all three columns stay where they are for every d_k.");

        // ── Self-checks ─────────────────────────────────────────────────────
        lesson.step("Self-checks");
        auto& check = lesson.checks();
        // Errors in units of each d_k's standard error (of var(q·k) = d_k, and of the
        // scaled variance = 1, whose standard error is d_k times smaller).
        double worst = 0.0, worst_scaled = 0.0;
        for (const VarianceRow& v : variances) {
            worst = std::max(worst, std::abs(v.variance - double(v.d_k)) / v.standard_error);
            worst_scaled = std::max(worst_scaled, std::abs(v.scaled_variance - 1.0) / (v.standard_error / double(v.d_k)));
        }
        check.close(fmt::format("var(q·k) = d_k for d_k = 4 … {} (error in standard errors)", widths.back()), worst,
                    standard_errors);
        check.close("var(q·k / √d_k) = 1 for every d_k (error in standard errors)", worst_scaled, standard_errors);
        check.close("112 and 96 scaled by √64 give weights 0.88 and 0.12 (to 2 decimals)",
                    std::max(std::abs(classic_weights(0, 0) - 0.88), std::abs(classic_weights(0, 1) - 0.12)), 0.005);
        check.close("unscaled they give 1.000 and 0.000 (to 3 decimals)",
                    std::max(std::abs(classic_unscaled_weights(0, 0) - 1.0), double(classic_unscaled_weights(0, 1))),
                    0.0005);
        check.close("rows of the sample weights sum to 1",
                    std::max(worst_row_sum_error(weights), worst_row_sum_error(weights_unscaled)), 1e-6);
        // ‖J‖ by finite differences of softmax_rows, for the first row of the sample.
        const float h = 1e-2f;
        double worst_jacobian = 0.0;
        for (std::size_t l = 0; l < n; ++l) {
            Matrix up = scaled_scores, down = scaled_scores;  // (n × n)
            up(0, l) += h;
            down(0, l) -= h;
            const Matrix p_up = softmax_rows(up), p_down = softmax_rows(down);
            for (std::size_t j = 0; j < n; ++j) {
                const double numeric = (double(p_up(0, j)) - p_down(0, j)) / (2.0 * h);
                const double formula = (j == l ? weights(0, j) : 0.0) - double(weights(0, j)) * weights(0, l);
                worst_jacobian = std::max(worst_jacobian, std::abs(numeric - formula));
            }
        }
        check.close("the Jacobian diag(p) − p pᵀ matches finite differences of softmax_rows", worst_jacobian, 1e-3);
        const double lowest = *std::min_element(entropy_scaled.begin(), entropy_scaled.end());
        const double highest = *std::max_element(entropy_scaled.begin(), entropy_scaled.end());
        check.that(fmt::format("scaled, the mean entropy stays within 15% for every d_k ({:.3f} to {:.3f})", lowest,
                               highest),
                   highest <= 1.15 * lowest);
        if (widths.back() >= 64)  // at small d_k the difference is within the noise
            check.that(fmt::format("unscaled, the largest weight grows ({:.3f} at d_k = 4, {:.3f} at d_k = {}) and "
                                   "‖J‖ shrinks",
                                   largest_unscaled.front(), largest_unscaled.back(), widths.back()),
                       largest_unscaled.back() > largest_unscaled.front() &&
                           jacobian_unscaled.back() < jacobian_unscaled.front());
    });
}
