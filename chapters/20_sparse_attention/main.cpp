// Chapter 20 · Attention that forgets on purpose: windows, sinks and top-k
//
// The lesson: chapter 16's copy-task model, trained once here, then read with fewer keys: a
// sliding window kept in a rolling buffer, the window plus sink tokens, a learned sink logit,
// and top-k keys chosen by a cheap indexer; what each keeps, costs and loses, side by side.
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/20_sparse_attention/checks.hpp"
#include "chapters/20_sparse_attention/inputs.hpp"
#include "chapters/20_sparse_attention/math.hpp"
#include "chapters/20_sparse_attention/tables.hpp"
#include "common/display/text_table.hpp"
#include "common/lesson/lesson.hpp"
#include "common/long_context/long_attention.hpp"
#include "common/machine/machine_memory.hpp"
#include "common/training/training_memory.hpp"
#include "common/training/training_progress.hpp"

namespace {

Labels variant_names(const std::vector<VariantRow>& table) {
    Labels labels;
    for (const VariantRow& v : table) labels.push_back(v.name);
    return labels;
}

// Each row's training says what it is doing (common/training/training_progress.hpp).
std::function<Progress(std::size_t)> progress_line() {
    return [](std::size_t row) { return training_progress("training " + variant_costs()[row].name); };
}

void show_model(Lesson& lesson, const ReadModel& r) {
    const CopyTaskSettings& s = r.settings;
    std::size_t trained = 0;  // the rows of the table that train a model of their own
    for (const VariantRow& row : variant_costs()) trained += row.trained;
    lesson.say(fmt::format(
        "Chapter 16's task and model: sequences of n = 2L = {} tokens from V = {} whose second\n"
        "half repeats the first; d_model = {}, {} layers of {} heads (d_h = {}), {} Adam steps of {}\n"
        "sequences, seed {}. {} models are trained, once each, the same way: one per variant that\n"
        "changes training ({}); the window, the sinks and top-k read the first one's weights.\n"
        "That one, multi-head attention over every key (MHA), is the model of the next steps. Its\n"
        "held-out accuracy over {} sequences: first half {} (chance 1/V = {}), second half {}.",
        2 * s.half_length, s.vocabulary, s.d_model, s.layers, s.heads, s.d_model / s.heads, s.steps, s.batch,
        s.seed, trained, lesson.ref("variants"), held_out_count, three(r.after.accuracy_first),
        three(1.0 / double(s.vocabulary)), three(r.after.accuracy_second)));
}

void show_rolling(Lesson& lesson, const ReadModel& r) {
    const Variant& v = r.chosen;
    lesson.say(fmt::format(
        "Head {} (the layer-2 head that copies) on held-out sequence 0, decoded one token at a\n"
        "time with a rolling buffer of s = {} sink slot(s) and w = {} window slots: token t < s goes\n"
        "to sink slot t and stays; token t ≥ s goes to slot s + (t mod w), over token t − w, which\n"
        "no later query reads. The buffer holds at most s + w = {} keys, however long the text.",
        head_name(r.settings, r.one.head), v.sinks, v.window, v.sinks + v.window));
    lesson.show(r.one.slots, Style().decimals(0).indices());
    lesson.heat_map(r.one.weights_full, Style().decimals(1).svg());
    lesson.heat_map(r.one.weights_window_sinks, Style().decimals(1).svg());
    lesson.say(fmt::format(
        "The copying head reads key i − L + 1 = i − {} in the second half (the stripe of the\n"
        "full map); with w ≤ {} that key is out of the window, and only the sinks remain far back.",
        r.settings.half_length - 1, r.settings.half_length - 1));
}

// The head with the largest entry of column c of a (heads × 3) table of shares.
std::size_t most(const Matrix& shares, std::size_t c) {
    std::size_t best = 0;
    for (std::size_t k = 1; k < rows(shares); ++k)
        if (shares(k, c) > shares(best, c)) best = k;
    return best;
}

void show_shares(Lesson& lesson, const ReadModel& r) {
    const CopyTaskSettings& s = r.settings;
    std::vector<TextRow> table;
    for (std::size_t k = 0; k < s.layers * s.heads; ++k)
        table.push_back({head_name(s, k), three(r.shares(k, 0)), three(r.shares(k, 1))});
    lesson.say(fmt::format(
        "Where the trained heads put their weight when there is nothing to copy: queries 1 … L − 1\n"
        "of the first half, averaged over {} held-out sequences. Spread evenly, position 0 and the\n"
        "current token would get {} each on average.",
        held_out_count, three(uniform_share(s.half_length))));
    lesson.table({"head", "on position 0", "on the current token"}, table);
    const std::size_t self = most(r.shares, 1), first = most(r.shares, 0);
    lesson.say(fmt::format(
        "This model: head {} puts {} of its weight on the current token, head {} puts {} on\n"
        "position 0. Softmax must spend a whole row; a head with nothing to do spends it where the\n"
        "value it reads changes little: its own token (already in the residual stream) or a fixed\n"
        "position. Large language models pile it on the first token, the attention sink of\n"
        "StreamingLLM. This small model has learned absolute positions, so a head can find any\n"
        "position, the current one included, without a first token to lean on.",
        head_name(s, self), three(r.shares(self, 1)), head_name(s, first), three(r.shares(first, 0))));
}

void show_sink_logit(Lesson& lesson, const ReadModel& r, const SinkModel& sink) {
    const CopyTaskSettings& s = r.settings;
    std::vector<TextRow> table;
    for (std::size_t k = 0; k < s.layers * s.heads; ++k)
        table.push_back({head_name(s, k), three(r.shares(k, 0)), three(r.shares(k, 1)), three(sink.logits(k, 0)),
                         three(sink.shares(k, 0)), three(sink.shares(k, 1)), three(sink.shares(k, 2))});
    lesson.say(fmt::format(
        "The same model trained again (the same data, {} steps, seed {}) with a sink logit σ_h per\n"
        "head: a_ij = e^(s_ij) / (e^σ_h + Σ_j' e^(s_ij')), so a row may sum to less than 1 and a head\n"
        "may read nothing. Held-out accuracy of the second half: {} (without the sink: {}).\n"
        "Shares of the first half's queries 1 … L − 1, without the sink, then with it:",
        s.steps, s.seed, three(sink.after.accuracy_second), three(r.after.accuracy_second)));
    lesson.table({"head", "position 0", "current", "σ_h", "position 0", "current", "the sink"}, table);
    const std::size_t sunk = most(sink.shares, 2);
    lesson.say(fmt::format(
        "With a place to put nothing, head {} gives the sink {} of its first-half weight\n"
        "(σ = {}); without it, that head put {} on position 0 and {} on the current token.\n"
        "The copying head {} of the sink model on held-out sequence 0 (rows sum to 1 − the\n"
        "sink's share):",
        head_name(s, sunk), three(sink.shares(sunk, 2)), three(sink.logits(sunk, 0)), three(r.shares(sunk, 0)),
        three(r.shares(sunk, 1)), head_name(s, sink.head.head)));
    lesson.heat_map(sink.head.sink_weights, Style().decimals(1).svg());
}

// The names of the read model's rows and columns, for --dump and --html.
void label_rows_and_columns(Lesson& lesson, const ReadModel& read, const CopyTaskSettings& settings,
                            const Variant& chosen) {
    lesson.labels({{"tokens", token_labels(read.held_out[0])}, {"heads", head_names(settings)},
                   {"shares", {"position_0", "current", "missing"}},
                   {"slots", numbered("slot", chosen.sinks + chosen.window)},
                   {"positions", numbered("t", read.held_out[0].size())},
                   {"window_columns", {"w", "accuracy", "loss", "accuracy_sinks", "loss_sinks"}},
                   {"topk_columns", {"k", "accuracy", "loss", "largest_error", "accuracy_exact", "loss_exact"}},
                   {"flops_columns", {"n", "indexer", "topk_attention", "full_attention"}}});
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson;  // named and titled by chapter.toml
    start_copy_task_trainings();  // one BLAS thread, buffers reused, trained models read back
    Flags flags;
    add_flags(lesson, flags);  // and --text, refused
    return lesson.run(argc, argv, [&] {
        const CopyTaskSettings settings = copy_task_settings(flags);
        const Variant chosen = chosen_variant(flags);
        // Each part trains what it reads, when a step first reads it (--list-steps waits for none):
        // the MHA model, the sink model, then the rest of the table (the first two read back).
        Part<ReadModel>& r = lesson.part<ReadModel>([&] {
            ReadModel read = read_model(settings, chosen, progress_line());
            label_rows_and_columns(lesson, read, settings, chosen);
            return read;
        });
        Part<SinkModel>& sink = lesson.part<SinkModel>([&] { return sink_model(settings, chosen, progress_line()); });
        Part<VariantsSideBySide>& side_by_side = lesson.part<VariantsSideBySide>([&] {
            VariantsSideBySide all = variants_side_by_side(settings, chosen, progress_line());
            lesson.labels({{"variants", variant_names(all.table)},
                           {"variant_columns", {"kept_4k", "kept_128k", "bytes_4k", "bytes_128k", "flops_4k",
                                                "flops_128k", "accuracy"}}});
            return all;
        });
        lesson.step("model", "The model, trained once", [&] { show_model(lesson, r()); });
        lesson.step("rolling-buffer", "A window and sinks in a rolling buffer", [&] { show_rolling(lesson, r()); });
        lesson.step("window-sweep", "Accuracy as the window shrinks, with and without sinks",
                    [&] { show_window_sweep(lesson, r()); });
        lesson.step("sinks", "Where the weight goes with nothing to copy, and a learned sink", [&] {
            show_shares(lesson, r());
            show_sink_logit(lesson, r(), sink());
        });
        lesson.step("top-k", "Top-k keys, chosen by an indexer", [&] { show_topk(lesson, r()); });
        lesson.step("variants", "Every variant side by side",
                    [&] { show_variants(lesson, side_by_side(), settings, chosen); });
        lesson.step("checks", "Self-checks", [&] { check_sparse(lesson.checks(), r(), sink()); });
        lesson.present();
    });
}
