#include "chapters/23_inside_the_model/control.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/display/text_table.hpp"
#include "common/lesson/lesson.hpp"

namespace {

std::string share_flag(double repeats) { return fmt::format("--repeats {}", repeats); }

// The best block-1 induction score along a training, as its log holds it (gpt_copying.hpp).
Series induction_trace(const LanguageModel& m, const std::string& name, const std::string& mark) {
    Series s{name, {}, {}, mark};
    for (const LoggedLoss& l : m.trained.log) s.x.push_back(double(l.step)), s.y.push_back(l.probes.at(0));
    return s;
}

// One column of the table: a model's numbers, as text.
std::vector<std::string> column(const HeadScores& s, const Removals& r, const Composition& c) {
    const std::size_t reader = highest_head(s.induction, 1), writer = highest_head(s.previous_token, 0);
    const double first = r.repeated_losses(0, 0), second = r.repeated_losses(0, 1);
    return {format_number(s.held_out_loss, 3),
            fmt::format("{} (L1 H{})", format_number(s.induction(1, reader), 3), reader),
            format_number(s.induction(1, reader) / s.uniform_induction, 1),
            format_number(first - second, 3),
            format_number(second, 3),
            format_number(r.repeated_losses(1, 1), 3),
            format_number(r.repeated_losses(2, 1), 3),
            fmt::format("{} (L0 H{})", format_number(c.k(writer, reader) / c.baseline, 1), writer)};
}

// What the numbers say of one model: an induction head, and what its removal costs, or none.
std::string verdict(double repeats, const HeadScores& s, const Removals& r) {
    const std::size_t reader = highest_head(s.induction, 1);
    const double score = s.induction(1, reader);
    if (score < role_share)
        return fmt::format("{}: no block-1 head reaches {} (the highest, L1 H{}, is {} times chance).", share_flag(repeats),
                           format_number(role_share, 1), reader, format_number(score / s.uniform_induction, 1));
    const double second = r.repeated_losses(0, 1);
    return fmt::format(
        "{}: L1 H{} is an induction head ({} ≥ {}); removing the heads of score ≥ {} raises the\n"
        "second copy's loss by {} nats, removing as many others by {}.",
        share_flag(repeats), reader, format_number(score, 3), format_number(role_share, 1), format_number(role_share, 1),
        format_number(r.repeated_losses(1, 1) - second, 3), format_number(r.repeated_losses(2, 1) - second, 3));
}

}  // namespace

ChartOptions chart_along_training(std::size_t last_step) {
    ChartOptions chart;
    chart.width = 56, chart.height = 8, chart.label_width = 7;
    chart.y_text = [](double v) { return format_number(v, 2); };
    for (const std::size_t step : {std::size_t(0), last_step / 2, last_step})
        chart.ticks.push_back({double(step), with_commas(step)});
    chart.x_title = "step";
    return chart;
}

Control measure_control(LanguageModel control, double repeats, const Probe& probe) {
    Control t;
    t.model = std::move(control), t.repeats = repeats;
    const Gpt<float>& model = t.model.trained.model;
    t.measured = measured(model, t.model.held_out_ids(), probe);
    if (model.config.layers >= 2) {
        t.composition = compose_heads(model, 0, composition_samples, probe.seed);
        t.composition.induction_without = induction_without_writers(model, 0, t.measured.scores.random_sequences);
    }
    return t;
}

MatrixList Control::matrices() const {
    MatrixList all;
    for (const MatrixList& part : {model.matrices(), measured.scores.matrices(), measured.removals.matrices(),
                                   composition.matrices()})
        for (ListedMatrix m : part) {
            const bool parameter = m.name.find('.') != std::string::npos;
            m.name = (parameter ? "control." : "control_") + m.name;
            m.opens.clear();  // the page opens the model's heads, not the control's
            all.push_back(m);
        }
    return all;
}

void show_control(Lesson& lesson, const LanguageModel& lm, double repeats, const Measurements& model,
                  const Composition& composition, const Control& control) {
    const HeadScores& s = model.scores;
    if (s.layers < 2) {
        lesson.say("One block: no head of a later block to compare.");
        return;
    }
    lesson.say(fmt::format(
        "The same recipe trained on the other book: {} steps each, the same number of tokens read, the\n"
        "model ({}) beside its control ({}), both measured as steps 2, 5 and 7 measure:",
        with_commas(lm.trained.log.back().step), share_flag(repeats), share_flag(control.repeats)));
    const std::vector<std::string> ours = column(s, model.removals, composition),
                                   theirs = column(control.measured.scores, control.measured.removals, control.composition);
    const std::vector<std::string> names{"held-out loss (the plain book)",
                                         "block 1's highest induction score",
                                         "  times chance",
                                         "copy's gain (first − second copy)",
                                         "second copy's loss",
                                         "  without that head",
                                         "  without as many others",
                                         "K-composition with the prev.-token head"};
    std::vector<TextRow> rows_;
    for (std::size_t i = 0; i < names.size(); ++i) rows_.push_back({names[i], ours[i], theirs[i]});
    lesson.table({"measured", share_flag(repeats), share_flag(control.repeats)}, rows_, 16);
    lesson.say_under("(K-composition: times random, with block 0's highest previous-token share)");
    lesson.say(verdict(repeats, s, model.removals) + "\n" +
               verdict(control.repeats, control.measured.scores, control.measured.removals));
    const ChartOptions chart = chart_along_training(lm.trained.log.back().step);
    lesson.chart("induction_with_and_without", "The best block-1 induction score along each training", {"step", false},
                 {"induction score", false},
                 {induction_trace(lm, share_flag(repeats), "r"), induction_trace(control.model, share_flag(control.repeats), "p")},
                 chart);
}
