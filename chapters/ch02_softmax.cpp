// Chapter 02 · Softmax: from scores to weights
//
// Chapter 01 gave every token a score for every other token. To take in "a bit
// of each", a token needs weights instead: numbers that are never negative and
// that add up to 1 across the row, so that a weighted sum is an average. The
// softmax turns any row of scores into such weights, and keeps their order:
//
//   weights(i, j) = exp(s_ij) / Σ_j' exp(s_ij')
//
// This chapter builds it twice with plain loops, the naive way (which overflows
// in float32) and the stable way (which subtracts the row maximum first), and
// then turns its one knob, the temperature T: softmax(scores / T).
//
// Shapes: X (n × d_model), one token per row; scores, weights (n × n).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/lesson/elide.hpp"
#include "common/lesson/lesson.hpp"
#include "common/math/matmul.hpp"
#include "common/lesson/self_check.hpp"
#include "common/lesson/sequence.hpp"
#include "common/math/softmax.hpp"
#include "common/lesson/text_table.hpp"
#include "common/math/weight_entropy.hpp"

namespace {

const std::string default_sentence = "the cat which was black sat on the mat";

// exp(s) / Σ exp(s), row by row, exactly as the formula reads. (n × m) → (n × m)
Matrix naive_softmax(const Matrix& scores) {
    Matrix weights = Matrix::from_shape(scores.shape());
    for (std::size_t i = 0; i < rows(scores); ++i) {
        // 1. exponentiate every score and sum them
        float sum = 0.0f;
        for (std::size_t j = 0; j < cols(scores); ++j) {
            weights(i, j) = std::exp(scores(i, j));
            sum += weights(i, j);
        }
        // 2. normalise so the row sums to 1
        for (std::size_t j = 0; j < cols(scores); ++j) weights(i, j) /= sum;
    }
    return weights;
}

// The same function, with the row maximum subtracted first (llama2.c's softmax).
// (n × m) → (n × m)
Matrix stable_softmax(const Matrix& scores) {
    Matrix weights = Matrix::from_shape(scores.shape());
    for (std::size_t i = 0; i < rows(scores); ++i) {
        // 1. find the row maximum, for numerical stability
        float row_max = scores(i, 0);
        for (std::size_t j = 1; j < cols(scores); ++j) row_max = std::max(row_max, scores(i, j));
        // 2. exp of the shifted scores: every one is in (0, 1], the largest is exactly 1
        float sum = 0.0f;
        for (std::size_t j = 0; j < cols(scores); ++j) {
            weights(i, j) = std::exp(scores(i, j) - row_max);
            sum += weights(i, j);
        }
        // 3. normalise (sum ≥ 1, so this never divides by zero)
        for (std::size_t j = 0; j < cols(scores); ++j) weights(i, j) /= sum;
    }
    return weights;
}

// Each score divided by its row's sum: the "obvious" normalisation.
Matrix divide_by_row_sum(const Matrix& scores) {
    Matrix out = Matrix::from_shape(scores.shape());
    for (std::size_t i = 0; i < rows(scores); ++i) {
        float sum = 0.0f;
        for (std::size_t j = 0; j < cols(scores); ++j) sum += scores(i, j);
        for (std::size_t j = 0; j < cols(scores); ++j) out(i, j) = scores(i, j) / sum;
    }
    return out;
}

// Whether Σ_j exp(s_ij) is too large for a float (computed in double, which
// holds up to e^709): then the naive row fails.
bool sum_of_exp_overflows(const Matrix& scores, std::size_t i) {
    double sum = 0.0;
    for (std::size_t j = 0; j < cols(scores); ++j) sum += std::exp(double(scores(i, j)));
    return sum > double(std::numeric_limits<float>::max());
}

// A row of weights that is not finite, or does not sum to 1.
bool row_is_broken(const Matrix& weights, std::size_t i) {
    double sum = 0.0;
    for (std::size_t j = 0; j < cols(weights); ++j) {
        if (!std::isfinite(weights(i, j))) return true;
        sum += weights(i, j);
    }
    return std::abs(sum - 1.0) > 1e-3;
}

// The largest |naive − stable| over the rows where Σ exp stays below float's maximum.
// Not "wherever naive is finite": when the sum overflows but no single exp() does
// (many keys tied near the top, as in a long --input), every naive weight is
// finite / inf = 0, finite and wrong. The rows the naive loop gets right are the
// rows where its sum fits.
double max_difference_where_sum_fits(const Matrix& naive, const Matrix& stable, const Matrix& scores) {
    double worst = 0.0;
    for (std::size_t i = 0; i < rows(scores); ++i)
        if (!sum_of_exp_overflows(scores, i))
            for (std::size_t j = 0; j < cols(scores); ++j)
                worst = std::max(worst, double(std::abs(naive(i, j) - stable(i, j))));
    return worst;
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch02_softmax", "Chapter 02 · Softmax: from scores to weights");
    const std::string& input = lesson.add_input_option("\"" + default_sentence + "\"");
    float temperature = 1.0f;
    lesson.cli()
        .add_option("--temperature", temperature, "T > 0: weights = softmax(scores / T); small T sharpens, large T flattens")
        ->capture_default_str()
        ->check(CLI::Range(0.001f, 1000.0f));

    return lesson.run(argc, argv, [&] {
        const Sequence seq = load_sequence(input, default_sentence);
        const Labels& tokens = seq.tokens;
        const Matrix& X = seq.X;  // (n × d_model)
        const std::size_t n = rows(X);
        lesson.keep_for_dump("X", X);

        // ── Step 1: the scores of chapter 01 ────────────────────────────────
        lesson.step("The scores of chapter 01");
        lesson.say(
            "Each row says how much one token matches every token. Scores can be any\n"
            "real number; weights must be ≥ 0 and add up to 1 across a row.");
        const Matrix scores = matmul_transposed(X, X);  // (n × n)
        lesson.show("scores", "X · Xᵀ", scores, tokens, tokens);

        // ── Step 2: why not divide by the sum? ──────────────────────────────
        lesson.step("Why not just divide by the row sum?");
        lesson.say(
            "These scores happen to be ≥ 0. Learned scores (chapter 05) are often negative,\n"
            "and then dividing by the sum breaks: the first row gets a negative \"weight\",\n"
            "the second sums to almost 0, so dividing by it blows every entry up.");
        const Labels example_rows = {"row_a", "row_b"};
        const Labels example_keys = {"k0", "k1", "k2"};
        const Matrix example_scores = {{2.0f, -1.0f, 0.5f}, {1.0f, -0.9f, -0.05f}};  // (2 × 3)
        const Matrix divided = divide_by_row_sum(example_scores);                      // (2 × 3)
        lesson.show("example_scores", "", example_scores, example_rows, example_keys, 2);
        lesson.show("divided_by_sum", "s / Σ_j s", divided, example_rows, example_keys, 3);
        lesson.say(
            "\nexp() fixes both: exp(s) > 0 for every s, and it keeps the order of the\n"
            "scores (a larger score gets a larger weight).");
        const Matrix example_weights = naive_softmax(example_scores);  // (2 × 3)
        lesson.show("example_weights", "exp(s) / Σ_j exp(s)", example_weights, example_rows, example_keys, 3);

        // ── Step 3: the naive softmax, and where it breaks ──────────────────
        lesson.step("The naive softmax, as a loop");
        lesson.say(
            "for each row: e_j = exp(s_j); sum = Σ_j e_j; weight_j = e_j / sum.\n"
            "On our scores it works:");
        const Matrix naive_weights = naive_softmax(scores);  // (n × n)
        lesson.show("naive_weights", "exp(scores) / Σ_j exp(scores)", naive_weights, tokens, tokens);
        lesson.say(
            "\nBut float32 holds numbers up to 3.4e38, and exp(88.8) is already more: for any\n"
            "score above 88.72, exp() returns inf, and inf / inf is nan (not a number).\n"
            "Scores that large are ordinary in a real model. Multiply ours by 100:");
        const Matrix scores_x100 = scores * 100.0f;                // (n × n)
        const Matrix naive_weights_x100 = naive_softmax(scores_x100);  // (n × n)
        lesson.show("naive_weights_x100", "exp(100 · scores) / Σ_j exp(100 · scores)", naive_weights_x100, tokens,
                    tokens);
        std::vector<std::string> survivors;
        std::size_t overflowing_rows = 0, only_sum_overflows = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (sum_of_exp_overflows(scores_x100, i)) {
                ++overflowing_rows;
                const float top = *std::max_element(scores_x100.begin() + std::ptrdiff_t(i * n),
                                                    scores_x100.begin() + std::ptrdiff_t((i + 1) * n));
                only_sum_overflows += std::isfinite(std::exp(top));  // many keys tied near the top
            } else {
                survivors.push_back(tokens[i]);
            }
        }
        lesson.say(fmt::format(
            "\nOnly the rows whose exp()s, and their sum, stay under 3.4e38 survive:\n  {}\n"
            "In the others exp() of the top score is inf: that key gets inf / inf = nan,\n"
            "and every other key a finite number / inf = 0.{}",
            survivors.empty() ? "none" : join_elided(survivors, ", "),
            only_sum_overflows == 0
                ? ""
                : fmt::format("\nExcept in {} of them, where no single exp() is inf, only their sum: there\n"
                              "every key gets finite / inf = 0, a row of zeros, finite and wrong.",
                              only_sum_overflows)));

        // ── Step 4: the stable softmax ──────────────────────────────────────
        lesson.step("The stable softmax: subtract the row maximum first");
        lesson.say(
            "exp(s_j − c) / Σ exp(s_j' − c) = exp(s_j) / Σ exp(s_j') for any c: the factor\n"
            "exp(−c) is in every term above and below the fraction bar, and cancels. With\n"
            "c = the row maximum, every exponent is ≤ 0, so every exp() is in (0, 1] and the\n"
            "sum is ≥ 1: nothing overflows, nothing divides by 0.");
        const Matrix stable_weights_x100 = stable_softmax(scores_x100);  // (n × n)
        lesson.show("stable_weights_x100", "softmax(100 · scores)", stable_weights_x100, tokens, tokens);
        const Matrix stable_weights = stable_softmax(scores);  // (n × n)
        std::size_t fitting_rows = 0;  // rows of the step 1 scores where the naive loop works
        for (std::size_t i = 0; i < n; ++i) fitting_rows += !sum_of_exp_overflows(scores, i);
        if (fitting_rows > 0)
            lesson.say(fmt::format(
                "\nThe same function: on the scores of step 1, {}, the\n"
                "two loops differ by at most {:.1e}, float32 rounding.",
                fitting_rows == n ? "where the naive loop is finite"
                                  : fmt::format("in the {} rows where Σ exp fits in a float", fitting_rows),
                max_difference_where_sum_fits(naive_weights, stable_weights, scores)));
        else
            lesson.say("\nOn the scores of step 1 (your --input) Σ exp overflows in every row: only the stable\n"
                       "loop gives weights.");

        // ── Step 5: softmax_rows, and the temperature ───────────────────────
        lesson.step(fmt::format("From now on: softmax_rows (common/math/softmax.hpp), at temperature T = {:g}", temperature));
        lesson.say(
            "The stable loop lives in common/math/softmax.hpp as softmax_rows, and every later\n"
            "chapter calls it. Dividing the scores by a temperature T before the softmax\n"
            "sharpens the weights (T < 1) or flattens them (T > 1); --temperature sets T.");
        const Matrix scaled = scores / temperature;    // (n × n)
        const Matrix weights = softmax_rows(scaled);  // (n × n)
        lesson.show("weights", fmt::format("softmax_rows(scores / {:g})", temperature), weights, tokens, tokens);

        std::vector<TextRow> per_row;
        for (const std::size_t i : elided_indices(n)) {  // a long --input: the first and last rows
            if (i == elided) {
                per_row.push_back({"⋮"});
                continue;
            }
            std::size_t top = 0;
            for (std::size_t j = 1; j < n; ++j)
                if (weights(i, j) > weights(i, top)) top = j;
            per_row.push_back({tokens[i], tokens[top], fmt::format("{:.3f}", weights(i, top)),
                               fmt::format("{:.3f}", row_entropy(weights, i))});
        }
        fmt::print("\n{}", format_table({"query", "most weight on", "largest weight", "entropy (nats)"}, per_row));
        lesson.say(fmt::format(
            "\nThe entropy −Σ p ln p measures how spread out a row is: 0 when all weight is on\n"
            "one key, ln {} = {:.3f} when the {} keys share it equally. Across temperatures:",
            n, std::log(double(n)), n));

        std::vector<float> sweep = {0.01f, 0.1f, 0.25f, 0.5f, 1.0f, 2.0f, 10.0f, 100.0f};
        if (std::find(sweep.begin(), sweep.end(), temperature) == sweep.end()) sweep.push_back(temperature);
        std::sort(sweep.begin(), sweep.end());
        std::vector<TextRow> sweep_rows;
        std::vector<double> sweep_entropy, sweep_largest;
        for (const float t : sweep) {
            const Matrix w = softmax_rows(scores / t);  // (n × n)
            sweep_entropy.push_back(mean_row_entropy(w));
            sweep_largest.push_back(mean_row_largest(w));
            sweep_rows.push_back({fmt::format("{:g}", t), fmt::format("{:.3f}", sweep_largest.back()),
                                  fmt::format("{:.3f}", sweep_entropy.back())});
        }
        fmt::print("\n{}", format_table({"T", "mean largest weight", "mean entropy (nats)"}, sweep_rows));
        std::string tied;  // a row whose largest score appears twice
        for (std::size_t i = 0; i < n && tied.empty(); ++i) {
            float row_max = scores(i, 0);
            for (std::size_t j = 1; j < n; ++j) row_max = std::max(row_max, scores(i, j));
            if (std::count(scores.begin() + std::ptrdiff_t(i * n), scores.begin() + std::ptrdiff_t((i + 1) * n),
                           row_max) > 1)
                tied = tokens[i];
        }
        lesson.say(fmt::format(
            "\nAs T → 0 each row puts all its weight on its largest score: the softmax becomes\n"
            "an argmax{}.\nAs T → ∞ every key gets 1/{} = {:.3f}, and the entropy reaches ln {} = {:.3f}.",
            tied.empty() ? "" : fmt::format(" (a row with a tied top score, like \"{}\", splits it)", tied), n,
            1.0 / double(n), n, std::log(double(n))));

        // ── Self-checks ─────────────────────────────────────────────────────
        lesson.step("Self-checks");
        auto& check = lesson.checks();
        check.that("dividing by the sum gives a negative \"weight\" for a negative score", divided(0, 1) < 0.0f);
        bool breaks_as_predicted = true;
        for (std::size_t i = 0; i < n; ++i)
            breaks_as_predicted = breaks_as_predicted &&
                                  row_is_broken(naive_weights_x100, i) == sum_of_exp_overflows(scores_x100, i);
        check.that(fmt::format("on 100 · scores the naive loop breaks in exactly the {} rows where Σ exp overflows",
                               overflowing_rows),
                   breaks_as_predicted);
        check.that("the stable loop stays finite on 100 · scores", all_finite(stable_weights_x100));
        // The two loops round their n-term sums differently: they may differ by what a
        // sum of n floats may drift (row_sum_tolerance), relative to weights ≤ 1.
        const std::string agree_x100 = "naive and stable loops agree where Σ exp does not overflow (100 · scores)";
        if (overflowing_rows < n)
            check.close(agree_x100,
                        max_difference_where_sum_fits(naive_weights_x100, stable_weights_x100, scores_x100),
                        row_sum_tolerance(n));
        else
            check.skip(agree_x100, "Σ exp overflows in every row");
        const std::string agree = "naive and stable loops agree on the scores, where Σ exp does not overflow";
        if (fitting_rows > 0)
            check.close(agree, max_difference_where_sum_fits(naive_weights, stable_weights, scores),
                        row_sum_tolerance(n));
        else
            check.skip(agree, "Σ exp overflows in every row");
        check.close("the stable loop equals softmax_rows", max_abs_difference(stable_softmax(scaled), weights), 1e-7);
        Matrix shifted = scores;  // (n × n); softmax(s + c) = softmax(s)
        for (std::size_t i = 0; i < n; ++i)
            // 10, 20, …, 100, then again: a larger constant would round the scores
            // themselves (a float near 3000, for a long --input, is spaced 2.4e-4).
            for (std::size_t j = 0; j < n; ++j) shifted(i, j) += 10.0f * float(i % 10 + 1);
        check.close("adding a constant to a row changes no weight",
                    max_abs_difference(softmax_rows(shifted), softmax_rows(scores)), 1e-5);
        // In float32 a weight next to 1 is rounded to 1 once the others add up to less
        // than 6e−8 (the spacing of floats below 1): a row whose scores span 15 or more
        // (exp(−15) ≈ 3e−7) may print a 1 and zeros, as the rows of 100 · scores do.
        std::size_t narrow_rows = 0;
        bool strictly_inside = true;
        for (std::size_t i = 0; i < n; ++i) {
            const auto [low, high] = std::minmax_element(scores.begin() + std::ptrdiff_t(i * n),
                                                         scores.begin() + std::ptrdiff_t((i + 1) * n));
            if (n < 2 || *high - *low >= 15.0f) continue;  // one key alone always gets weight 1
            ++narrow_rows;
            for (std::size_t j = 0; j < n; ++j)
                strictly_inside = strictly_inside && stable_weights(i, j) > 0.0f && stable_weights(i, j) < 1.0f;
        }
        if (narrow_rows > 0)
            check.that(narrow_rows == n ? "every weight lies strictly between 0 and 1 at T = 1"
                                        : fmt::format("every weight lies strictly between 0 and 1 at T = 1 (in the "
                                                      "{} rows whose scores span less than 15)",
                                                      narrow_rows),
                       strictly_inside);
        check.that(fmt::format("every weight lies in [0, 1] at T = {:g}", temperature),
                   std::all_of(weights.begin(), weights.end(), [](float p) { return p >= 0.0f && p <= 1.0f; }));
        check.close(fmt::format("rows sum to 1 at T = {:g}", temperature), worst_row_sum_error(weights),
                    row_sum_tolerance(n));
        check.close("rows of 100 · scores (stable) sum to 1", worst_row_sum_error(stable_weights_x100),
                    row_sum_tolerance(n));
        bool entropy_grows = true, largest_falls = true;
        for (std::size_t k = 1; k < sweep.size(); ++k) {
            entropy_grows = entropy_grows && sweep_entropy[k] >= sweep_entropy[k - 1] - 1e-6;
            largest_falls = largest_falls && sweep_largest[k] <= sweep_largest[k - 1] + 1e-6;
        }
        check.that("a higher T never lowers the mean entropy nor raises the mean largest weight",
                   entropy_grows && largest_falls);
    });
}
