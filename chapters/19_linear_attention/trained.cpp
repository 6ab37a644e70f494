#include "chapters/19_linear_attention/trained.hpp"


#include <string>

#include <fmt/format.h>

#include "common/display/time_text.hpp"
#include "common/training/training_progress.hpp"

namespace {
std::string three_digits(double x) { return format_number(float(x), 3); }
// Bytes per token: whole numbers as they are, fractions with 3 significant digits.
std::string bytes(double x) { return x >= 10 ? fmt::format("{:.0f} B", x) : fmt::format("{:.3g} B", x); }
}  // namespace

std::function<Progress(std::size_t)> TrainingClock::progress() {
    return [this](std::size_t m) -> Progress {
        if (first.size() <= m) first.resize(m + 1), last.resize(m + 1), steps.resize(m + 1);
        const Progress said = training_progress("training " + mixer_name(trained_mixers[m]));
        return [this, m, said](int step, int total, const LoggedStep& row) {
            const auto now = std::chrono::steady_clock::now();
            if (step == 0) first[m] = now;
            last[m] = now, steps[m] = step;
            said(step, total, row);
        };
    };
}

void show_trained(Lesson& lesson, const SideBySide& r) {
    const CopyTaskSettings& s = r.settings;
    const std::size_t d_h = s.d_model / s.heads;
    lesson.say(fmt::format(
        "Chapter 16's task and model: sequences of 2L = {} tokens from V = {} whose second half\n"
        "repeats the first; d_model = {}, {} layers of {} heads (d_h = {}), {} Adam steps of {}\n"
        "sequences, seed {}. Four models, the same data, size and steps; only how a head mixes\n"
        "its tokens differs: softmax, linear attention (φ = elu + 1), the delta rule, and the\n"
        "gated delta rule (β_t and α_t projections of the token). Held-out accuracy over {}\n"
        "sequences, after training (chance 1/V = {}):",
        2 * s.half_length, s.vocabulary, s.d_model, s.layers, s.heads, d_h, s.steps, s.batch, s.seed,
        held_out_count, three_digits(1.0 / double(s.vocabulary))));
    std::vector<TextRow> table;
    for (std::size_t m = 0; m < r.models.size(); ++m) {
        const Halves& h = r.models[m].after;
        table.push_back({mixer_name(trained_mixers[m]), three_digits(h.accuracy_first), three_digits(h.accuracy_second),
                         three_digits(h.loss_second), bytes(r.memory_bytes(m, 0)), bytes(r.memory_bytes(m, 1))});
    }
    lesson.table({"mixer", "accuracy, 1st half", "accuracy, 2nd half", "loss, 2nd", "bytes/token, n=32",
                  fmt::format("n={}", long_n)}, table);
    lesson.say(fmt::format(
        "Bytes kept per token for decoding (float32), all {} heads: softmax keeps every key and\n"
        "value, 2·d_h = {} numbers per head per token, at any n: its cache grows with n. The\n"
        "recurrent models keep one state per head, d_h·d_h = {} numbers (+ d_h for linear\n"
        "attention's z), whatever n: per token it shrinks as 1/n.",
        s.layers * s.heads, 2 * d_h, d_h * d_h));
    ChartOptions chart;
    chart.width = 60, chart.height = 10, chart.label_width = 7;
    chart.y_text = [](double v) { return format_number(float(v), 2); };
    chart.ticks = {{0.0, "step 0"}, {double(s.steps), fmt::format("step {}", s.steps)}};
    std::vector<Series> series;
    for (std::size_t m = 0; m < r.models.size(); ++m) {
        std::vector<double> loss;
        for (const LoggedStep& row : r.models[m].curve) loss.push_back(row.loss_second);
        series.push_back({mixer_name(trained_mixers[m]), r.curve_steps, loss, std::to_string(m + 1)});
    }
    lesson.chart("loss_curves", "Second-half loss (the copies), held-out probe sequences", {"step", false},
                 {"cross-entropy (nats)", false}, series, chart);
    const double soft = r.accuracy(0, 1), lin = r.accuracy(1, 1), delta = r.accuracy(2, 1), gated = r.accuracy(3, 1);
    // A share of the gap means something only when there is a gap: after a few steps every
    // model is at chance, and 0.002 apart would give "-250%".
    constexpr double smallest_gap = 0.1;
    const std::string closes =
        soft - lin >= smallest_gap
            ? fmt::format(";\nthe delta rule closes {}% of the gap from linear attention to softmax, the gated\n"
                          "delta rule {}%",
                          format_number(float(100 * (delta - lin) / (soft - lin)), 0),
                          format_number(float(100 * (gated - lin) / (soft - lin)), 0))
            : fmt::format(";\nsoftmax is not {} ahead of linear attention here, so there is no gap to share", smallest_gap);
    lesson.say(fmt::format("This run (seed {}): second-half accuracy softmax {}, linear {}, delta {}, gated {}{}.",
                           s.seed, three_digits(soft), three_digits(lin), three_digits(delta), three_digits(gated), closes));
}

void show_measured(Lesson& lesson, const SideBySide& r, const TrainingClock& clock) {
    lesson.say("Wall-clock time per training step on this machine (each model on one thread, the\n"
               "others beside it when --threads is above 1), from each model's first logged step to\n"
               "its last. These numbers change from run to run.");
    std::vector<TextRow> table;
    for (std::size_t m = 0; m < r.models.size() && m < clock.steps.size(); ++m) {
        const double seconds = std::chrono::duration<double>(clock.last[m] - clock.first[m]).count();
        const double per_step = seconds / double(std::max(1, clock.steps[m]));
        table.push_back({mixer_name(trained_mixers[m]), time_text(per_step),
                         format_number(float(1.0 / per_step), 0)});
    }
    lesson.table({"mixer", "time per step", "steps per second"}, table);
}
