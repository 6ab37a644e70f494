// Chapter 16 · An induction head forms in a model trained here
//
// The lesson: a two-layer attention-only model, trained by the hand-written backward
// pass of common/copy_model/attention_only_model.cpp, learns to copy the repeated half of a
// random sequence. The steps show the task, the gradient check, the two loss curves,
// every head's attention before and after, which head does which job (computed from
// the weights), the accuracy per half, what zeroing a head does, and a copy generated
// with a KV cache; then the self-checks.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/16_induction_head/checks.hpp"
#include "chapters/16_induction_head/inputs.hpp"
#include "chapters/16_induction_head/math.hpp"
#include "common/display/text_table.hpp"
#include "common/inputs/sequence.hpp"
#include "common/lesson/lesson.hpp"
#include "common/long_context/long_attention.hpp"
#include "common/machine/machine_memory.hpp"
#include "common/training/training_memory.hpp"
#include "common/training/training_progress.hpp"

namespace {

// A share, a loss or a score as the tables print it.
std::string three(double x) { return format_number(float(x), 3); }
std::string names(const Settings& s, const std::vector<std::size_t>& heads) {
    std::string text;
    for (std::size_t k : heads) text += (text.empty() ? "" : ", ") + head_name(s, k);
    return text.empty() ? "none" : text;
}
std::string token_text(const Tokens& t) {
    std::string text;
    for (std::size_t i = 0; i < t.size(); ++i) text += (i % 24 == 0 && i ? "\n  " : " ") + std::to_string(t[i]);
    return text;
}

// Progress on stderr when it is a terminal: step, both losses, tokens per second.
Progress progress_line(const Settings& s) {
    const auto start = std::chrono::steady_clock::now();
    return training_progress("training", [s, start](int step, const LoggedStep& row) {
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double tokens = double(step) * double(s.batch * 2 * s.half_length);
        return fmt::format("loss {} (first half) {} (second half)  {} tokens/s", three(row.loss_first),
                           three(row.loss_second), format_number(float(seconds > 0 ? tokens / seconds : 0.0), 0));
    });
}

void show_task(Lesson& lesson, const Induction& r) {
    const Settings& s = r.settings;
    lesson.say(fmt::format(
        "Each sequence has n = 2L = {} tokens drawn uniformly from V = {}; the second half\n"
        "repeats the first. The next token of the first half is new: no model can beat\n"
        "ln V = {} there. In the second half it can be copied, by a head that finds the\n"
        "current token's earlier occurrence and reads the token just after it.",
        2 * s.half_length, s.vocabulary, three(std::log(double(s.vocabulary)))));
    lesson.say(fmt::format("The held-out sequence shown below (tokens):\n {}", token_text(r.shown)));
    lesson.say(
        fmt::format("Training sequences repeat their start at a lag drawn from [L/2, L] = [{}, {}]: with the\n"
                    "lag always L, one layer could copy from the positions alone (look L − 1 back).\n"
                    "The model: d_model = {}, {} layer(s) of {} head(s), {} positions, {} parameters.",
                    shortest_lag(s.half_length), s.half_length, s.d_model, s.layers, s.heads,
                    s.learned_positions ? "learned" : "no", r.parameter_count));
}

void show_gradient_check(Lesson& lesson, const Induction& r) {
    lesson.say(fmt::format(
        "The backward pass (common/copy_model/attention_only_model.hpp) against central differences\n"
        "D(h) = (loss(w + h) − loss(w − h)) / 2h in double, taken as (4·D(h) − D(2h)) / 3, h = 1e-5\n"
        "(Richardson: the h² errors of the two cancel), for every one of the {} entries of a\n"
        "small model (V = 5, n = 6, d_model = 4, 2 layers of 2 heads, 2 sequences):\n"
        "largest relative error {:.1e}, largest absolute error {:.1e}.",
        r.check_small.entries, r.check_small.max_relative_error, r.check_small.max_abs_error));
}

void show_training(Lesson& lesson, const Induction& r) {
    const Settings& s = r.settings;
    std::vector<TextRow> table;
    for (const std::size_t i : r.table_rows)
        table.push_back({std::to_string(r.curve[i].step), three(r.curve[i].loss_first), three(r.curve[i].loss_second)});
    lesson.say(fmt::format("Loss on {} held-out sequences, logged every {} steps (ln V = {}); the table shows\n"
                           "every {}th step and the last, the chart every logged step:",
                           probe_count, s.log_every, three(std::log(double(s.vocabulary))),
                           r.table_stride * std::size_t(s.log_every)));
    lesson.table({"step", "loss, first half", "loss, second half"}, table);
    ChartOptions chart;
    chart.width = 60, chart.height = 10, chart.label_width = 7;
    chart.y_text = [](double v) { return format_number(float(v), 2); };
    chart.ticks = {{0.0, "step 0"}, {double(s.steps), fmt::format("step {}", s.steps)}};
    lesson.chart("loss", "Next-token loss of each half", {"step", false}, {"cross-entropy (nats)", false},
                 {{"first half (new tokens)", r.curve_steps, r.curve_first, "1"},
                  {"second half (copies)", r.curve_steps, r.curve_second, "2"}}, chart);
    lesson.say(
        r.drop_step <= std::size_t(s.steps)
            ? fmt::format("The second half's loss falls below half of ln V at step {}: the phase change.", r.drop_step)
            : std::string("The second half's loss never fell below half of ln V in this run."));
}

void show_heads(Lesson& lesson, const Induction& r) {
    const Settings& s = r.settings;
    const std::size_t L = s.half_length;
    lesson.say(fmt::format(
        "Every head's weights on the held-out sequence after training, one character per weight\n"
        "(rows: query i and its token; columns: key j). A previous-token head's weights lie just\n"
        "left of the diagonal (key i − 1); an induction head's, in the second half (rows {} to {}),\n"
        "on the stripe of key i − L + 1 = i − {}. With --svg the maps before training too.",
        L, 2 * L - 1, L - 1));
    for (std::size_t k = 0; k < s.layers * s.heads; ++k) {
        // with --svg, the map at the start too (listed, so dumped, with the trained parameters)
        lesson.draw(r.shown_before.weights[k]);
        lesson.heat_map(r.shown_after.weights[k], Style().decimals(1).svg());
    }
}

void show_scores(Lesson& lesson, const Induction& r) {
    const Settings& s = r.settings;
    std::vector<TextRow> table;
    for (std::size_t k = 0; k < s.layers * s.heads; ++k)
        table.push_back({head_name(s, k), three(r.scores_before.previous_token[k]),
                         three(r.scores_after.previous_token[k]), three(r.scores_before.induction[k]),
                         three(r.scores_after.induction[k])});
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
    lesson.table({"held-out", "accuracy, first half", "accuracy, second half", "loss, first", "loss, second"},
                 {{"at the start", three(r.before.accuracy_first), three(r.before.accuracy_second),
                   three(r.before.loss_first), three(r.before.loss_second)},
                  {"trained", three(r.after.accuracy_first), three(r.after.accuracy_second), three(r.after.loss_first),
                   three(r.after.loss_second)}});
    lesson.say(fmt::format("Chance is 1/V = {}. (The prediction of token L, a copy of token 0, is in neither half.)",
                           three(1.0 / double(r.settings.vocabulary))));
}

void show_ablation(Lesson& lesson, const Induction& r) {
    const Settings& s = r.settings;
    const auto row = [](const std::string& zeroed, const Halves& h) {
        return TextRow{zeroed, three(h.accuracy_first), three(h.accuracy_second)};
    };
    std::vector<TextRow> table{row("none", r.after)};
    for (std::size_t k = 0; k < r.ablated.size(); ++k) table.push_back(row(head_name(s, k), r.ablated[k]));
    table.push_back(row("previous-token: " + names(s, r.previous_heads), r.without_previous));
    table.push_back(row("induction: " + names(s, r.induction_heads), r.without_induction));
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
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson;  // named and titled by chapter.toml
    start_copy_task_trainings();  // one BLAS thread, buffers reused, trained models read back
    Flags flags;
    add_flags(lesson, flags);
    refuse_text(lesson, "its model is trained to copy random tokens and has never read text");
    return lesson.run(argc, argv, [&] {
        const Settings chosen = settings(flags);
        // The training, done when the first step reads it (--list-steps does not wait for it).
        Part<Induction>& r = lesson.part<Induction>([&] {
            Induction trained = train_induction(chosen, progress_line(chosen));
            lesson.labels({{"tokens", token_labels(trained.shown)}, {"heads", head_names(trained.settings)},
                           {"scores", {"previous_start", "previous_trained", "induction_start", "induction_trained"}},
                           {"trained", {"trained"}}, {"halves", {"first_half", "second_half"}}});
            return trained;
        });
        lesson.step("task", "The task: copy the repeated half", [&] { show_task(lesson, r()); });
        lesson.step("gradient-check", "The backward pass against finite differences",
                    [&] { show_gradient_check(lesson, r()); });
        lesson.step("training", "Training: the two halves' losses", [&] { show_training(lesson, r()); });
        lesson.step("attention-maps", "Every head's attention", [&] { show_heads(lesson, r()); });
        lesson.step("head-scores", "Which head does which job", [&] { show_scores(lesson, r()); });
        lesson.step("accuracy", "In-context accuracy per half", [&] { show_accuracy(lesson, r()); });
        lesson.step("ablation", "Zeroing heads", [&] { show_ablation(lesson, r()); });
        lesson.step("generation", "Generating the copy with a KV cache", [&] { show_generation(lesson, r()); });
        lesson.step("checks", "Self-checks", [&] { check_induction(lesson.checks(), r()); });
        lesson.present();
    });
}
