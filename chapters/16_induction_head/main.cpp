// Chapter 16 · An induction head forms in a model trained here
//
// The lesson: a two-layer attention-only model, trained by the hand-written backward
// pass of common/math/attention_only_model.cpp, learns to copy the repeated half of a
// random sequence. The steps show the task, the gradient check, the two loss curves,
// every head's attention before and after, which head does which job (computed from
// the weights), the accuracy per half, what zeroing a head does, and a copy generated
// with a KV cache; then the self-checks.
#include <malloc.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/16_induction_head/math.hpp"
#include "common/lesson/lesson.hpp"
#include "common/lesson/text_table.hpp"
#include "common/math/long_attention.hpp"

namespace {

struct Flags {
    Settings s;
    std::string positions = "learned";
};

void add_flags(CLI::App& cli, Flags& f) {
    cli.add_option("--steps", f.s.steps, fmt::format("Adam steps, each on a fresh batch of {} sequences", f.s.batch))
        ->check(CLI::Range(1, 5000))
        ->capture_default_str();
    cli.add_option("--lr", f.s.lr, "Adam's learning rate")->check(CLI::Range(1e-4f, 0.1f))->capture_default_str();
    cli.add_option("--seed", f.s.seed, "seed of the initial weights and of the sequences")
        ->check(CLI::Validator(
            [](std::string& text) {
                return !text.empty() && text.size() < 10 && text.find_first_not_of("0123456789") == std::string::npos
                           ? std::string()
                           : std::string("expected a whole number from 0 to 999999999");
            },
            ""))
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

// Whether the model, the task and the learning rate are the chapter's defaults, whatever
// --seed and --steps say: the claims about which circuit training finds hold there (seeds
// 0 to 19 checked). With another V, L or head count it can copy by other means (with
// L = 4 a layer-1 head copies; with V = 128 and one head per layer the heads split the job
// otherwise; a greedy copy derails after one wrong token), so they are not checked then.
bool is_default_task(const Settings& s) {
    const Settings d;
    return s.lr == d.lr && s.heads == d.heads && s.layers == d.layers && s.vocabulary == d.vocabulary &&
           s.half_length == d.half_length && s.learned_positions;
}
// The second half's held-out accuracy every seed of the default settings reaches (seeds 0 to
// measured_seeds − 1; the test induction_seeds runs them all).
constexpr double default_accuracy = 0.97;
constexpr std::uint64_t measured_seeds = 20;

std::string head_name(const Settings& s, std::size_t k) { return fmt::format("L{}H{}", k / s.heads + 1, k % s.heads); }
std::string names(const Settings& s, const std::vector<std::size_t>& heads) {
    std::string text;
    for (std::size_t k : heads) text += (text.empty() ? "" : ", ") + head_name(s, k);
    return text.empty() ? "none" : text;
}
Labels token_labels(const Tokens& t) {
    Labels labels;
    for (std::size_t v : t) labels.push_back(std::to_string(v));
    return labels;
}
std::string token_text(const Tokens& t) {
    std::string text;
    for (std::size_t i = 0; i < t.size(); ++i) text += (i % 24 == 0 && i ? "\n  " : " ") + std::to_string(t[i]);
    return text;
}
Matrix column(const std::vector<double>& v) {
    Matrix m = Matrix::from_shape({v.size(), 1});
    for (std::size_t i = 0; i < v.size(); ++i) m(i, 0) = float(v[i]);
    return m;
}
Matrix one_head(const ModelForward<float>& f, std::size_t k) { return f.weights[k]; }  // (n × n), one sequence

// Progress on stderr when it is a terminal: step, both losses, tokens per second.
Progress progress_line(const Settings& s) {
    if (!isatty(2)) return {};
    const auto start = std::chrono::steady_clock::now();
    return [s, start](int step, int steps, const LoggedStep& row) {
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double tokens = double(step) * double(s.batch * 2 * s.half_length);
        std::fprintf(stderr, "\rstep %d/%d  loss %.3f (first half) %.3f (second half)  %.0f tokens/s%s", step, steps,
                     row.loss_first, row.loss_second, seconds > 0 ? tokens / seconds : 0.0, step == steps ? "\n" : "");
    };
}

std::size_t parameter_count(const AttentionOnlyModel<float>& m) {
    std::size_t count = m.E.size() + (m.learned_positions ? m.P.size() : 0) + m.U.size();
    for (std::size_t k = 0; k < m.W_Q.size(); ++k)
        count += m.W_Q[k].size() + m.W_K[k].size() + m.W_V[k].size() + m.W_O[k].size();
    return count;
}

void show_task(Lesson& lesson, const Induction& r) {
    const Settings& s = r.settings;
    lesson.say(fmt::format(
        "Each sequence has n = 2L = {} tokens drawn uniformly from V = {}; the second half\n"
        "repeats the first. The next token of the first half is new: no model can beat\n"
        "ln V = {:.3f} there. In the second half it can be copied, by a head that finds the\n"
        "current token's earlier occurrence and reads the token just after it.",
        2 * s.half_length, s.vocabulary, std::log(double(s.vocabulary))));
    Matrix tokens = Matrix::from_shape({1, r.shown.size()});
    for (std::size_t i = 0; i < r.shown.size(); ++i) tokens(0, i) = float(r.shown[i]);
    lesson.keep_for_dump("tokens", tokens);
    lesson.say(fmt::format("The held-out sequence shown below (tokens):\n {}", token_text(r.shown)));
    lesson.say(
        fmt::format("Training sequences repeat their start at a lag drawn from [L/2, L] = [{}, {}]: with the\n"
                    "lag always L, one layer could copy from the positions alone (look L − 1 back).\n"
                    "The model: d_model = {}, {} layer(s) of {} head(s), {} positions, {} parameters.",
                    shortest_lag(s.half_length), s.half_length, s.d_model, s.layers, s.heads,
                    s.learned_positions ? "learned" : "no", parameter_count(r.start)));
}

void show_gradient_check(Lesson& lesson, const Induction& r) {
    lesson.say(fmt::format(
        "The backward pass (common/math/attention_only_model.hpp) against central differences\n"
        "D(h) = (loss(w + h) − loss(w − h)) / 2h in double, taken as (4·D(h) − D(2h)) / 3, h = 1e-5\n"
        "(Richardson: the h² errors of the two cancel), for every one of the {} entries of a\n"
        "small model (V = 5, n = 6, d_model = 4, 2 layers of 2 heads, 2 sequences):\n"
        "largest relative error {:.1e}, largest absolute error {:.1e}.",
        r.check_small.entries, r.check_small.max_relative_error, r.check_small.max_abs_error));
}

void show_training(Lesson& lesson, const Induction& r) {
    const Settings& s = r.settings;
    std::vector<double> x, first, second;
    std::vector<TextRow> table;
    const std::size_t stride = std::max<std::size_t>(1, r.curve.size() / 8);  // the table's rows: every stride-th log
    for (std::size_t i = 0; i < r.curve.size(); ++i) {
        const LoggedStep& row = r.curve[i];
        x.push_back(row.step), first.push_back(row.loss_first), second.push_back(row.loss_second);
        if (i % stride == 0 || i + 1 == r.curve.size())
            table.push_back({std::to_string(row.step), fmt::format("{:.3f}", row.loss_first),
                             fmt::format("{:.3f}", row.loss_second)});
    }
    lesson.say(fmt::format("Loss on {} held-out sequences, logged every {} steps (ln V = {:.3f}); the table shows\n"
                           "every {}th step and the last, the chart every logged step:",
                           probe_count, s.log_every, std::log(double(s.vocabulary)), stride * std::size_t(s.log_every)));
    lesson.table({"step", "loss, first half", "loss, second half"}, table);
    ChartOptions chart;
    chart.width = 60, chart.height = 10, chart.label_width = 7;
    chart.y_text = [](double v) { return fmt::format("{:.2f}", v); };
    chart.ticks = {{0.0, "step 0"}, {double(s.steps), fmt::format("step {}", s.steps)}};
    lesson.chart("loss", "Next-token loss of each half", {"step", false}, {"cross-entropy (nats)", false},
                 {{"first half (new tokens)", x, first, "1"}, {"second half (copies)", x, second, "2"}}, chart);
    lesson.keep_for_dump("loss_first_half", column(first));
    lesson.keep_for_dump("loss_second_half", column(second));
    lesson.say(
        r.drop_step <= std::size_t(s.steps)
            ? fmt::format("The second half's loss falls below half of ln V at step {}: the phase change.", r.drop_step)
            : std::string("The second half's loss never fell below half of ln V in this run."));
}

void show_heads(Lesson& lesson, const Induction& r) {
    const Settings& s = r.settings;
    const Labels labels = token_labels(r.shown);
    const std::size_t L = s.half_length;
    lesson.say(fmt::format(
        "Every head's weights on the held-out sequence after training, one character per weight\n"
        "(rows: query i and its token; columns: key j). A previous-token head's weights lie just\n"
        "left of the diagonal (key i − 1); an induction head's, in the second half (rows {} to {}),\n"
        "on the stripe of key i − L + 1 = i − {}. With --svg the maps before training too.",
        L, 2 * L - 1, L - 1));
    const AttentionOnlyModel<float>& m = r.trained;  // the trained parameters, for a check outside
    lesson.keep_for_dump("E", m.E), lesson.keep_for_dump("P", m.P), lesson.keep_for_dump("U", m.U);
    for (std::size_t k = 0; k < s.layers * s.heads; ++k) {
        const std::string name = fmt::format("weights_L{}_H{}", k / s.heads + 1, k % s.heads);
        const std::string suffix = name.substr(std::string("weights").size());
        lesson.keep_for_dump("W_Q" + suffix, m.W_Q[k]), lesson.keep_for_dump("W_K" + suffix, m.W_K[k]);
        lesson.keep_for_dump("W_V" + suffix, m.W_V[k]), lesson.keep_for_dump("W_O" + suffix, m.W_O[k]);
        lesson.picture(name + "_before", one_head(r.shown_before, k), ShowAs("at the start").labels(labels, labels));
        lesson.keep_for_dump(name + "_before", one_head(r.shown_before, k), labels, labels);
        lesson.heat_map_block(name, one_head(r.shown_after, k),
                              ShowAs(fmt::format("head {} after training", head_name(s, k)))
                                  .labels(labels, labels)
                                  .decimals(1)
                                  .heat_map());
    }
}

void show_scores(Lesson& lesson, const Induction& r) {
    const Settings& s = r.settings;
    std::vector<TextRow> table;
    for (std::size_t k = 0; k < s.layers * s.heads; ++k)
        table.push_back({head_name(s, k), fmt::format("{:.3f}", r.scores_before.previous_token[k]),
                         fmt::format("{:.3f}", r.scores_after.previous_token[k]),
                         fmt::format("{:.3f}", r.scores_before.induction[k]),
                         fmt::format("{:.3f}", r.scores_after.induction[k])});
    Matrix scores = Matrix::from_shape({s.layers * s.heads, 4});  // (heads × 4)
    Labels heads;
    for (std::size_t k = 0; k < s.layers * s.heads; ++k) {
        heads.push_back(head_name(s, k));
        scores(k, 0) = float(r.scores_before.previous_token[k]), scores(k, 1) = float(r.scores_after.previous_token[k]);
        scores(k, 2) = float(r.scores_before.induction[k]), scores(k, 3) = float(r.scores_after.induction[k]);
    }
    lesson.keep_for_dump("head_scores", scores, heads,
                         {"previous_start", "previous_trained", "induction_start", "induction_trained"});
    lesson.say(
        fmt::format("Mean weight on the previous token (i − 1), and in the second half on the token\n"
                    "just after the earlier occurrence (i − L + 1), over {} held-out sequences:",
                    held_out_count));
    lesson.table({"head", "previous, start", "previous, trained", "induction, start", "induction, trained"}, table);
    lesson.say(
        fmt::format("A score of {} or more names the job. Previous-token head(s): {} (largest: {}).\n"
                    "Induction head(s): {} (largest: {}). Neither: {}.",
                    role_score, names(s, r.previous_heads), head_name(s, r.previous_head), names(s, r.induction_heads),
                    head_name(s, r.induction_head), names(s, r.other_heads)));
}

void show_accuracy(Lesson& lesson, const Induction& r) {
    const double chance = 1.0 / double(r.settings.vocabulary);
    lesson.table(
        {"held-out", "accuracy, first half", "accuracy, second half", "loss, first", "loss, second"},
        {{"at the start", fmt::format("{:.3f}", r.before.accuracy_first),
          fmt::format("{:.3f}", r.before.accuracy_second), fmt::format("{:.3f}", r.before.loss_first),
          fmt::format("{:.3f}", r.before.loss_second)},
         {"trained", fmt::format("{:.3f}", r.after.accuracy_first), fmt::format("{:.3f}", r.after.accuracy_second),
          fmt::format("{:.3f}", r.after.loss_first), fmt::format("{:.3f}", r.after.loss_second)}});
    lesson.say(fmt::format("Chance is 1/V = {:.3f}. (The prediction of token L, a copy of token 0, is in neither "
                           "half.)",
                           chance));
    Matrix accuracy = Matrix::from_shape({1, 2});
    accuracy(0, 0) = float(r.after.accuracy_first), accuracy(0, 1) = float(r.after.accuracy_second);
    lesson.keep_for_dump("accuracy", accuracy, {"trained"}, {"first_half", "second_half"});
}

void show_ablation(Lesson& lesson, const Induction& r) {
    const Settings& s = r.settings;
    std::vector<TextRow> table{{"none", fmt::format("{:.3f}", r.after.accuracy_first),
                                fmt::format("{:.3f}", r.after.accuracy_second)}};
    for (std::size_t k = 0; k < r.ablated.size(); ++k)
        table.push_back({head_name(s, k), fmt::format("{:.3f}", r.ablated[k].accuracy_first),
                         fmt::format("{:.3f}", r.ablated[k].accuracy_second)});
    table.push_back({"previous-token: " + names(s, r.previous_heads),
                     fmt::format("{:.3f}", r.without_previous.accuracy_first),
                     fmt::format("{:.3f}", r.without_previous.accuracy_second)});
    table.push_back({"induction: " + names(s, r.induction_heads),
                     fmt::format("{:.3f}", r.without_induction.accuracy_first),
                     fmt::format("{:.3f}", r.without_induction.accuracy_second)});
    lesson.say("Held-out accuracy with a head's output set to 0 (or every head of a job at once):");
    lesson.table({"zeroed", "accuracy, first half", "accuracy, second half"}, table);
}

void show_generation(Lesson& lesson, const Induction& r) {
    const Generation& g = r.generation;
    lesson.say(fmt::format(
        "Prompt: a new segment of L tokens, all different when V ≥ L (so that the copy is\n"
        "unambiguous), then its first {} tokens again:\n {}\nGreedy continuation, "
        "one token at a time with a KV cache (each layer and head keeps\nevery token's key and "
        "value; a new token adds one row and asks one query):\n {}\nThe copy would be:\n {}\n"
        "{} of {} generated tokens copy correctly.",
        prompt_repeat, token_text(g.prompt), token_text(g.generated), token_text(g.expected), g.right,
        g.expected.size()));
    Matrix sequence = Matrix::from_shape({1, g.prompt.size() + g.generated.size()});  // (1 × n)
    for (std::size_t i = 0; i < cols(sequence); ++i)
        sequence(0, i) = float(i < g.prompt.size() ? g.prompt[i] : g.generated[i - g.prompt.size()]);
    lesson.keep_for_dump("generated_tokens", sequence);
    lesson.keep_for_dump("cached_logits", g.cached_logits);
    lesson.keep_for_dump("full_logits", g.full_logits);
}

void check(SelfChecks& check, const Induction& r) {
    const Settings& s = r.settings;
    const double lnV = std::log(double(s.vocabulary)), chance = 1.0 / double(s.vocabulary);
    check.close("backward pass = central differences (relative, double)",
                r.check_small.max_relative_error, 1e-6);
    double row_error = 0, above = 0;
    for (const ModelForward<float>* f : {&r.shown_before, &r.shown_after})
        for (const Mat<float>& A : f->weights) {
            row_error = std::max(row_error, worst_row_sum_error(A));
            for (std::size_t i = 0; i < rows(A); ++i)
                for (std::size_t j = i + 1; j < cols(A); ++j) above = std::max(above, double(A(i, j)));
        }
    check.close("every head's weights sum to 1 per row", row_error, row_sum_tolerance(2 * s.half_length));
    check.close("no query looks at a later token (weights above the diagonal)", above, 0.0);
    check.close("the KV-cached decode's logits equal the full forward pass's",
                max_abs_difference(r.generation.cached_logits, r.generation.full_logits),
                scaled_tolerance(1e-4, r.generation.full_logits));
    // 960 predictions of independent uniform tokens: right ones are binomial(N, 1/V)
    const double N = double(held_out_count * (s.half_length - 1));
    check.close("first-half accuracy − 1/V: within 5 standard deviations",
                r.after.accuracy_first - chance, 5 * std::sqrt(chance * (1 - chance) / N));
    check.that(fmt::format("the first half's loss is no lower than ln V − 0.1 ({:.3f} ≥ {:.3f})", r.after.loss_first,
                           lnV - 0.1),
               r.after.loss_first >= lnV - 0.1);
    // The default settings (any seed of 0 to 19, where the tests measure them) copy almost perfectly.
    const std::string copies_well = fmt::format("the second half's accuracy is ≥ {} at the default settings ({:.3f})",
                                                default_accuracy, r.after.accuracy_second);
    if (!is_default_task(s) || s.steps != Settings().steps)
        check.skip(copies_well, "not the default --steps, --vocab, --half-length, --heads, --lr or --positions");
    else if (s.seed >= measured_seeds)
        check.skip(copies_well, fmt::format("--seed {}: the default settings are measured for seeds 0 to {}", s.seed,
                                            measured_seeds - 1));
    else
        check.that(copies_well, r.after.accuracy_second >= default_accuracy);
    const bool converged = r.after.accuracy_second >= 0.8;
    const std::string why =
        !s.learned_positions
            ? "no positions: no previous-token head can form, and more steps do not help"
        : is_default_task(s) && s.steps < Settings().steps
            ? fmt::format("the model has not learned to copy yet (second-half accuracy {:.3f} < 0.8 after {} "
                          "steps; the default {} reach it)",
                          r.after.accuracy_second, s.steps, Settings().steps)
            : fmt::format("the model did not learn to copy (second-half accuracy {:.3f} < 0.8)",
                          r.after.accuracy_second);
    const std::string layered = "the previous-token head is in layer 1 and the induction head in layer 2";
    const std::string collapse_i = "zeroing the induction head(s) drops second-half accuracy below half";
    const std::string collapse_p = "zeroing the previous-token head(s) drops second-half accuracy below half";
    const std::string keeps = "zeroing a head with neither job keeps ≥ 3/4 of the second-half accuracy";
    const std::string copies = "the generated tokens copy the first half (≥ 80% right)";
    if (!converged || s.layers < 2 || !is_default_task(s)) {
        const std::string reason = s.layers < 2                      ? "one layer: no second layer for an induction head"
                                   : !converged || !s.learned_positions ? why
                                                : "not the default --vocab, --half-length, --heads, --lr or "
                                                  "--positions: training may copy by another circuit";
        for (const std::string& claim : {layered, collapse_i, collapse_p, keeps, copies}) check.skip(claim, reason);
        return;
    }
    check.that(layered, r.previous_head / s.heads == 0 && r.induction_head / s.heads == 1);
    check.that(collapse_i, r.without_induction.accuracy_second < 0.5 * r.after.accuracy_second);
    check.that(collapse_p, r.without_previous.accuracy_second < 0.5 * r.after.accuracy_second);
    if (r.other_heads.empty()) check.skip(keeps, "every head has a job");
    for (std::size_t k : r.other_heads)
        check.that(fmt::format("{} ({})", keeps, head_name(s, k)),
                   r.ablated[k].accuracy_second >= 0.75 * r.after.accuracy_second);
    check.that(copies, double(r.generation.right) >= 0.8 * double(r.generation.expected.size()));
}

}  // namespace

int main(int argc, char** argv) {
    set_blas_threads(1);                  // small products: threads would cost more than they save
    mallopt(M_MMAP_THRESHOLD, 64 << 20);  // reuse the step's buffers instead of mapping them anew
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    Lesson lesson("ch16_induction_head", "Chapter 16 · An induction head forms in a model trained here");
    Flags flags;
    add_flags(lesson.cli(), flags);
    return lesson.run(argc, argv, [&] {
        flags.s.learned_positions = flags.positions == "learned";
        const Induction r = train_induction(flags.s, progress_line(flags.s));
        lesson.step("task", "The task: copy the repeated half", [&] { show_task(lesson, r); });
        lesson.step("gradient-check", "The backward pass against finite differences",
                    [&] { show_gradient_check(lesson, r); });
        lesson.step("training", "Training: the two halves' losses", [&] { show_training(lesson, r); });
        lesson.step("attention-maps", "Every head's attention", [&] { show_heads(lesson, r); });
        lesson.step("head-scores", "Which head does which job", [&] { show_scores(lesson, r); });
        lesson.step("accuracy", "In-context accuracy per half", [&] { show_accuracy(lesson, r); });
        lesson.step("ablation", "Zeroing heads", [&] { show_ablation(lesson, r); });
        lesson.step("generation", "Generating the copy with a KV cache", [&] { show_generation(lesson, r); });
        lesson.step("checks", "Self-checks", [&] { check(lesson.checks(), r); });
        lesson.present();
    });
}
