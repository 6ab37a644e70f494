// Chapter 02 · Softmax: from scores to weights
//
// The lesson: the two softmax loops of math.cpp, the naive one that overflows in
// float32 and the stable one that subtracts the row maximum, then the shared
// softmax_rows and its temperature, shown step by step and checked against
// what they must be (rows that sum to 1, the same weights for shifted scores,
// the softmax computed again in double).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/02_softmax/math.hpp"
#include "common/lesson/elide.hpp"
#include "common/lesson/lesson.hpp"
#include "common/lesson/self_check.hpp"
#include "common/lesson/sequence.hpp"
#include "common/lesson/text_table.hpp"
#include "common/math/softmax.hpp"

namespace {

const std::string default_sentence = "the cat which was black sat on the mat";

// Step: the naive loop on 100 · scores, and which rows survive it.
void show_naive_x100(Lesson& lesson, const Labels& tokens, const SoftmaxLesson& r) {
    lesson.say(
        "But float32 holds numbers up to 3.4e38, and exp(88.8) is already more: for any\n"
        "score above 88.72, exp() returns inf, and inf / inf is nan (not a number).\n"
        "Scores that large are ordinary in a real model. Multiply ours by 100:");
    lesson.show("naive_weights_x100", r.naive_weights_x100,
                ShowAs("exp(100 · scores) / Σ_j exp(100 · scores)").labels(tokens, tokens).heat_map());
    std::vector<std::string> survivors;
    std::size_t only_sum_overflows = 0;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (!r.overflows_x100[i]) survivors.push_back(tokens[i]);
        else only_sum_overflows += r.top_exp_finite_x100[i];
    }
    lesson.say(
        fmt::format("Only the rows whose exp()s, and their sum, stay under 3.4e38 survive:\n  {}\n"
                    "In the others exp() of the top score is inf: that key gets inf / inf = nan,\n"
                    "and every other key a finite number / inf = 0.{}",
                    survivors.empty() ? "none" : join_elided(survivors, ", "),
                    only_sum_overflows == 0
                        ? ""
                        : fmt::format("\nExcept in {} of them, where no single exp() is inf, only their sum: there\n"
                                      "every key gets finite / inf = 0, a row of zeros, finite and wrong.",
                                      only_sum_overflows)));
}

// Step: softmax_rows at temperature T, each row's peak and entropy, and the sweep of T.
void show_temperature(Lesson& lesson, const Labels& tokens, const SoftmaxLesson& r) {
    const std::size_t n = tokens.size();
    lesson.say(
        "The stable loop lives in common/math/softmax.hpp as softmax_rows, and every later\n"
        "chapter calls it. Dividing the scores by a temperature T before the softmax\n"
        "sharpens the weights (T < 1) or flattens them (T > 1); --temperature sets T.");
    lesson.show("weights", r.weights,
                ShowAs(fmt::format("softmax_rows(scores / {:g})", r.temperature)).labels(tokens, tokens).heat_map());
    std::vector<TextRow> per_row;
    for (std::size_t i = 0; i < n; ++i) {  // a long --input: the first and last rows
        const std::size_t top = argmax_of_row(r.weights, i);
        per_row.push_back({tokens[i], tokens[top], fmt::format("{:.3f}", r.weights(i, top)),
                           fmt::format("{:.3f}", r.entropy[i])});
    }
    lesson.table({"query", "most weight on", "largest weight", "entropy (nats)"}, per_row);
    lesson.say(
        fmt::format("The entropy −Σ p ln p measures how spread out a row is: 0 when all weight is on\n"
                    "one key, ln {} = {:.3f} when the {} keys share it equally. Across temperatures:",
                    n, std::log(double(n)), n));
    std::vector<TextRow> sweep_rows;
    for (std::size_t k = 0; k < r.sweep.size(); ++k)
        sweep_rows.push_back({fmt::format("{:g}", r.sweep[k]), fmt::format("{:.3f}", r.sweep_largest[k]),
                              fmt::format("{:.3f}", r.sweep_entropy[k])});
    lesson.table({"T", "mean largest weight", "mean entropy (nats)"}, sweep_rows);
    lesson.say(fmt::format(
        "As T → 0 each row puts all its weight on its largest score: the softmax becomes\n"
        "an argmax{}.\nAs T → ∞ every key gets 1/{} = {:.3f}, and the entropy reaches ln {} = {:.3f}.",
        r.tied_row == n ? ""
                        : fmt::format(" (a row with a tied top score, like \"{}\", splits it)", tokens[r.tied_row]),
        n, 1.0 / double(n), n, std::log(double(n))));
}

// The softmax of `scores`, computed again in double from the definition:
// exp(s_ij − m_i) / Σ_j' exp(s_ij' − m_i). Shares no code with softmax_rows.
std::vector<std::vector<double>> softmax_in_double(const Matrix& scores) {
    std::vector<std::vector<double>> p(rows(scores), std::vector<double>(cols(scores)));
    for (std::size_t i = 0; i < rows(scores); ++i) {
        double top = scores(i, 0), sum = 0.0;
        for (std::size_t j = 0; j < cols(scores); ++j) top = std::max(top, double(scores(i, j)));
        for (std::size_t j = 0; j < cols(scores); ++j) sum += p[i][j] = std::exp(double(scores(i, j)) - top);
        for (std::size_t j = 0; j < cols(scores); ++j) p[i][j] /= sum;
    }
    return p;
}

double max_difference(const Matrix& weights, const std::vector<std::vector<double>>& expected) {
    double worst = 0.0;
    for (std::size_t i = 0; i < rows(weights); ++i)
        for (std::size_t j = 0; j < cols(weights); ++j) {
            const double d = std::abs(double(weights(i, j)) - expected[i][j]);
            worst = std::isnan(d) ? INFINITY : std::max(worst, d);
        }
    return worst;
}

// Each claim against something computed another way.
void check(SelfChecks& check, const SoftmaxLesson& r) {
    const std::size_t n = rows(r.scores);
    const std::size_t overflowing = std::size_t(std::count(r.overflows_x100.begin(), r.overflows_x100.end(), true));
    check.that("dividing by the sum gives a negative \"weight\" for a negative score", r.divided_by_sum(0, 1) < 0.0f);
    bool breaks_as_predicted = true;  // a broken row: not finite, or not summing to 1
    for (std::size_t i = 0; i < n; ++i) {
        double sum = 0.0;
        bool finite = true;
        for (std::size_t j = 0; j < n; ++j) finite = finite && std::isfinite(r.naive_weights_x100(i, j));
        for (std::size_t j = 0; j < n; ++j) sum += r.naive_weights_x100(i, j);
        breaks_as_predicted = breaks_as_predicted && (!finite || std::abs(sum - 1.0) > 1e-3) == r.overflows_x100[i];
    }
    check.that(fmt::format("on 100 · scores the naive loop breaks in exactly the {} rows where Σ exp overflows",
                           overflowing),
               breaks_as_predicted);
    check.that("the stable loop stays finite on 100 · scores", all_finite(r.stable_weights_x100));
    // The two loops round their n-term sums differently: they may differ by what a
    // sum of n floats may drift (row_sum_tolerance), relative to weights ≤ 1.
    const std::string agree_x100 = "naive and stable loops agree where Σ exp fits (100 · scores)";
    if (overflowing < n) check.close(agree_x100, r.naive_vs_stable_x100, row_sum_tolerance(n));
    else check.skip(agree_x100, "Σ exp overflows in every row");
    const std::string agree = "naive and stable loops agree where Σ exp fits (scores)";
    if (std::count(r.overflows.begin(), r.overflows.end(), false) > 0)
        check.close(agree, r.naive_vs_stable, row_sum_tolerance(n));
    else
        check.skip(agree, "Σ exp overflows in every row");
    check.close("the stable loop equals softmax_rows", max_abs_difference(stable_softmax_rows(r.scaled), r.weights),
                1e-7);
    // The independent reference: the definition evaluated in double, no float loop shared.
    check.close("softmax_rows equals the formula looped in double", max_difference(r.weights, softmax_in_double(r.scaled)), row_sum_tolerance(n));
    Matrix shifted = r.scores;  // (n × n); softmax(s + c) = softmax(s)
    for (std::size_t i = 0; i < n; ++i)
        // 10, 20, …, 100, then again: a larger constant would round the scores
        // themselves (a float near 3000, for a long --input, is spaced 2.4e-4).
        for (std::size_t j = 0; j < n; ++j) shifted(i, j) += 10.0f * float(i % 10 + 1);
    check.close("adding a constant to a row changes no weight",
                max_abs_difference(softmax_rows(shifted), softmax_rows(r.scores)), 1e-5);
    // In float32 a weight next to 1 is rounded to 1 once the others add up to less
    // than 6e−8 (the spacing of floats below 1): a row whose scores span 15 or more
    // (exp(−15) ≈ 3e−7) may print a 1 and zeros, as the rows of 100 · scores do.
    std::size_t narrow_rows = 0;
    bool strictly_inside = true;
    for (std::size_t i = 0; i < n; ++i) {
        const auto [low, high] = std::minmax_element(r.scores.begin() + std::ptrdiff_t(i * n),
                                                     r.scores.begin() + std::ptrdiff_t((i + 1) * n));
        if (n < 2 || *high - *low >= 15.0f) continue;  // one key alone always gets weight 1
        ++narrow_rows;
        for (std::size_t j = 0; j < n; ++j)
            strictly_inside = strictly_inside && r.stable_weights(i, j) > 0.0f && r.stable_weights(i, j) < 1.0f;
    }
    if (narrow_rows > 0)
        check.that(narrow_rows == n ? "every weight lies strictly between 0 and 1 at T = 1"
                                    : fmt::format("every weight lies strictly between 0 and 1 at T = 1 (in the "
                                                  "{} rows whose scores span less than 15)",
                                                  narrow_rows),
                   strictly_inside);
    check.that(fmt::format("every weight lies in [0, 1] at T = {:g}", r.temperature),
               std::all_of(r.weights.begin(), r.weights.end(), [](float p) { return p >= 0.0f && p <= 1.0f; }));
    check.close(fmt::format("rows sum to 1 at T = {:g}", r.temperature), worst_row_sum_error(r.weights),
                row_sum_tolerance(n));
    check.close("rows of 100 · scores (stable) sum to 1", worst_row_sum_error(r.stable_weights_x100),
                row_sum_tolerance(n));
    bool entropy_grows = true, largest_falls = true;
    for (std::size_t k = 1; k < r.sweep.size(); ++k) {
        entropy_grows = entropy_grows && r.sweep_entropy[k] >= r.sweep_entropy[k - 1] - 1e-6;
        largest_falls = largest_falls && r.sweep_largest[k] <= r.sweep_largest[k - 1] + 1e-6;
    }
    check.that("a higher T never lowers the mean entropy nor raises the mean largest weight",
               entropy_grows && largest_falls);
}

// The flags.
struct Flags {
    float temperature = 1.0f;
};

void add_flags(CLI::App& cli, Flags& f) {
    cli.add_option("--temperature", f.temperature,
                   "T > 0: weights = softmax(scores / T); small T sharpens, large T flattens")
        ->capture_default_str()
        ->check(CLI::Range(0.001f, 1000.0f));
}

// What --dump writes besides the matrices the steps show.
void keep_for_dumps(Lesson& lesson, const Sequence& seq, const SoftmaxLesson& r) {
    lesson.keep_for_dump("X", seq.X);
    lesson.keep_for_dump("scores_x100", r.scores_x100);
    lesson.keep_for_dump("stable_weights", r.stable_weights);
    lesson.keep_for_dump("scores_over_T", r.scaled);
}

// Step: the scores of chapter 01.
void show_scores(Lesson& lesson, const Labels& tokens, const SoftmaxLesson& r) {
    lesson.say("Each row says how much one token matches every token. Scores can be any\n"
               "real number; weights must be ≥ 0 and add up to 1 across a row.");
    lesson.show("scores", r.scores, ShowAs("X · Xᵀ").labels(tokens, tokens));
}

// Step: dividing by the row sum, and why exp() is better.
void show_divide_by_sum(Lesson& lesson, const SoftmaxLesson& r) {
    lesson.say("These scores happen to be ≥ 0. Learned scores (chapter 05) are often negative,\n"
               "and then dividing by the sum breaks: the first row gets a negative \"weight\",\n"
               "the second sums to almost 0, so dividing by it blows every entry up.");
    const Labels example_rows = {"row_a", "row_b"}, example_keys = {"k0", "k1", "k2"};
    lesson.show("example_scores", r.example_scores, ShowAs().labels(example_rows, example_keys).decimals(2));
    lesson.show("divided_by_sum", r.divided_by_sum, ShowAs("s / Σ_j s").labels(example_rows, example_keys));
    lesson.say(
        "exp() fixes both: exp(s) > 0 for every s, and it keeps the order of the\n"
        "scores (a larger score gets a larger weight).");
    lesson.show("example_weights", r.example_weights,
                ShowAs("exp(s) / Σ_j exp(s)").labels(example_rows, example_keys).heat_map());
}

// Step: the naive loop, on the scores and on 100 · scores.
void show_naive_loop(Lesson& lesson, const Labels& tokens, const SoftmaxLesson& r) {
    lesson.say("for each row: e_j = exp(s_j); sum = Σ_j e_j; weight_j = e_j / sum.\n"
               "On our scores it works:");
    lesson.show("naive_weights", r.naive_weights,
                ShowAs("exp(scores) / Σ_j exp(scores)").labels(tokens, tokens).heat_map());
    show_naive_x100(lesson, tokens, r);
}

// Step: the stable loop on 100 · scores, and how far it is from the naive one.
void show_stable_loop(Lesson& lesson, const Labels& tokens, const SoftmaxLesson& r) {
    lesson.say("exp(s_j − c) / Σ exp(s_j' − c) = exp(s_j) / Σ exp(s_j') for any c: the factor\n"
               "exp(−c) is in every term above and below the fraction bar, and cancels. With\n"
               "c = the row maximum, every exponent is ≤ 0, so every exp() is in (0, 1] and the\n"
               "sum is ≥ 1: nothing overflows, nothing divides by 0.");
    lesson.show("stable_weights_x100", r.stable_weights_x100,
                ShowAs("softmax(100 · scores)").labels(tokens, tokens).heat_map());
    const auto fitting = std::size_t(std::count(r.overflows.begin(), r.overflows.end(), false));
    if (fitting > 0)
        lesson.say(
            fmt::format("The same function: on the scores of {}, {}, the\n"
                        "two loops differ by at most {:.1e}, float32 rounding.",
                        lesson.ref("scores"),
                        fitting == tokens.size() ? "where the naive loop is finite"
                                                 : fmt::format("in the {} rows where Σ exp fits in a float", fitting),
                        r.naive_vs_stable));
    else
        lesson.say(
            fmt::format("On the scores of {} (your --input) Σ exp overflows in every row: only the "
                        "stable\nloop gives weights.",
                        lesson.ref("scores")));
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch02_softmax", "Chapter 02 · Softmax: from scores to weights");
    const std::string& input = lesson.add_input_option("\"" + default_sentence + "\"");
    Flags flags;
    add_flags(lesson.cli(), flags);

    return lesson.run(argc, argv, [&] {
        const Sequence seq = load_sequence(input, default_sentence);
        const Labels& tokens = seq.tokens;
        const SoftmaxLesson r = softmax_lesson(seq.X, flags.temperature);
        keep_for_dumps(lesson, seq, r);

        lesson.step("scores", "The scores of chapter 01", [&] { show_scores(lesson, tokens, r); });
        lesson.step("divide-by-sum", "Why not just divide by the row sum?", [&] { show_divide_by_sum(lesson, r); });
        lesson.step("naive-loop", "The naive softmax, as a loop", [&] { show_naive_loop(lesson, tokens, r); });
        lesson.step("stable-loop", "The stable softmax: subtract the row maximum first",
                    [&] { show_stable_loop(lesson, tokens, r); });
        lesson.step("temperature",
                    fmt::format("From now on: softmax_rows (common/math/softmax.hpp), at temperature T = {:g}",
                                flags.temperature),
                    [&] { show_temperature(lesson, tokens, r); });
        lesson.step("checks", "Self-checks", [&] { check(lesson.checks(), r); });
        lesson.present();
    });
}
