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

#include "chapters/02_softmax/checks.hpp"
#include "chapters/02_softmax/math.hpp"
#include "common/attention/softmax.hpp"
#include "common/display/elide.hpp"
#include "common/display/text_table.hpp"
#include "common/inputs/sequence.hpp"
#include "common/language_model/sentence_option.hpp"
#include "common/lesson/lesson.hpp"

namespace {

const std::string default_sentence = "the cat which was black sat on the mat";

// Step: the naive loop on 100 · scores, and which rows survive it.
void show_naive_x100(Lesson& lesson, const Labels& tokens, const NaiveAndStable& r) {
    lesson.say(
        "But float32 holds numbers up to 3.4e38, and exp(88.8) is already more: for any\n"
        "score above 88.72, exp() returns inf, and inf / inf is nan (not a number).\n"
        "Scores that large are ordinary in a real model. Multiply ours by 100:");
    lesson.show(r.naive_weights_x100, Style().svg());
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
void show_temperature(Lesson& lesson, const Labels& tokens, const NaiveAndStable& r) {
    const std::size_t n = tokens.size();
    lesson.say(
        "The stable loop lives in common/attention/softmax.hpp as softmax_rows, and every later\n"
        "chapter calls it. Dividing the scores by a temperature T before the softmax\n"
        "sharpens the weights (T < 1) or flattens them (T > 1); --temperature sets T.");
    lesson.show(r.weights, Style().svg());
    std::vector<TextRow> per_row;
    for (std::size_t i = 0; i < n; ++i) {  // a long --input: the first and last rows
        const std::size_t top = argmax_of_row(r.weights, i);
        per_row.push_back({tokens[i], tokens[top], format_number(r.weights(i, top), 3),
                           format_number(float(r.entropy[i]), 3)});
    }
    lesson.table({"query", "most weight on", "largest weight", "entropy (nats)"}, per_row);
    lesson.say(
        fmt::format("The entropy −Σ p ln p measures how spread out a row is: 0 when all weight is on\n"
                    "one key, ln {} = {} when the {} keys share it equally. Across temperatures:",
                    n, format_number(float(std::log(double(n))), 3), n));
    std::vector<TextRow> sweep_rows;
    for (std::size_t k = 0; k < r.sweep.size(); ++k)
        sweep_rows.push_back({fmt::format("{:g}", r.sweep[k]), format_number(float(r.sweep_largest[k]), 3),
                              format_number(float(r.sweep_entropy[k]), 3)});
    lesson.table({"T", "mean largest weight", "mean entropy (nats)"}, sweep_rows);
    lesson.say(fmt::format(
        "As T → 0 each row puts all its weight on its largest score: the softmax becomes\n"
        "an argmax{}.\nAs T → ∞ every key gets 1/{} = {}, and the entropy reaches ln {} = {}.",
        r.tied_row == n ? ""
                        : fmt::format(" (a row with a tied top score, like \"{}\", splits it)", tokens[r.tied_row]),
        n, format_number(float(1.0 / double(n)), 3), n, format_number(float(std::log(double(n))), 3)));
}

// The flags.
struct Flags {
    float temperature = 1.0f;
};

void add_flags(Lesson& lesson, Flags& f) {
    lesson.option("--temperature", f.temperature, "T: weights = softmax(scores / T); small T sharpens, large T flattens",
                  Range{0.001, 1000});
}

// Step: the scores of chapter 01.
void show_scores(Lesson& lesson, const NaiveAndStable& r) {
    lesson.say("Each row says how much one token matches every token. Scores can be any\n"
               "real number; weights must be ≥ 0 and add up to 1 across a row.");
    lesson.show(r.scores);
}

// Step: dividing by the row sum, and why exp() is better.
void show_divide_by_sum(Lesson& lesson, const NaiveAndStable& r) {
    lesson.say("These scores happen to be ≥ 0. Learned scores (chapter 05) are often negative,\n"
               "and then dividing by the sum breaks: the first row gets a negative \"weight\",\n"
               "the second sums to almost 0, so dividing by it blows every entry up.");
    lesson.show(r.example_scores, Style().decimals(2));
    lesson.show(r.divided_by_sum);
    lesson.say(
        "exp() fixes both: exp(s) > 0 for every s, and it keeps the order of the\n"
        "scores (a larger score gets a larger weight).");
    lesson.show(r.example_weights, Style().svg());
}

// Step: the naive loop, on the scores and on 100 · scores.
void show_naive_loop(Lesson& lesson, const Labels& tokens, const NaiveAndStable& r) {
    lesson.say("for each row: e_j = exp(s_j); sum = Σ_j e_j; weight_j = e_j / sum.\n"
               "On our scores it works:");
    lesson.show(r.naive_weights, Style().svg());
    show_naive_x100(lesson, tokens, r);
}

// Step: the stable loop on 100 · scores, and how far it is from the naive one.
void show_stable_loop(Lesson& lesson, const Labels& tokens, const NaiveAndStable& r) {
    lesson.say("exp(s_j − c) / Σ exp(s_j' − c) = exp(s_j) / Σ exp(s_j') for any c: the factor\n"
               "exp(−c) is in every term above and below the fraction bar, and cancels. With\n"
               "c = the row maximum, every exponent is ≤ 0, so every exp() is in (0, 1] and the\n"
               "sum is ≥ 1: nothing overflows, nothing divides by 0.");
    lesson.show(r.stable_weights_x100, Style().svg());
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
    Lesson lesson;  // named and titled by chapter.toml
    const SequenceSource& input = add_sentence_options(lesson, "\"" + default_sentence + "\"");
    Flags flags;
    add_flags(lesson, flags);

    return lesson.run(argc, argv, [&] {
        const Sequence seq = load_sequence(input, default_sentence);
        const Labels& tokens = seq.tokens;
        const NaiveAndStable r = naive_and_stable(seq.X, flags.temperature);
        lesson.labels("tokens", tokens);
        lesson.labels("dimensions", seq.dimensions);
        lesson.labels("example rows", {"row_a", "row_b"});
        lesson.labels("example keys", {"k0", "k1", "k2"});
        lesson.list(seq.matrices());
        lesson.list(r.matrices());

        lesson.step("scores", "The scores of chapter 01", [&] { show_scores(lesson, r); });
        lesson.step("divide-by-sum", "Why not just divide by the row sum?", [&] { show_divide_by_sum(lesson, r); });
        lesson.step("naive-loop", "The naive softmax, as a loop", [&] { show_naive_loop(lesson, tokens, r); });
        lesson.step("stable-loop", "The stable softmax: subtract the row maximum first",
                    [&] { show_stable_loop(lesson, tokens, r); });
        lesson.step("temperature",
                    fmt::format("From now on: softmax_rows (common/attention/softmax.hpp), at temperature T = {:g}",
                                flags.temperature),
                    [&] { show_temperature(lesson, tokens, r); });
        lesson.step("checks", "Self-checks", [&] { check_softmax(lesson.checks(), r); });
        lesson.present();
    });
}
