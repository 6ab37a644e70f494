// Chapter 20 · Attention that forgets on purpose: windows, sinks and top-k
//
// The lesson: chapter 16's copy-task model, trained once here, then read with fewer keys: a
// sliding window kept in a rolling buffer, the window plus sink tokens, a learned sink logit,
// and top-k keys chosen by a cheap indexer; what each keeps, costs and loses, side by side.
#include <malloc.h>
#include <unistd.h>

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/20_sparse_attention/checks.hpp"
#include "chapters/20_sparse_attention/inputs.hpp"
#include "chapters/20_sparse_attention/math.hpp"
#include "common/lesson/lesson.hpp"
#include "common/lesson/machine_memory.hpp"
#include "common/lesson/text_table.hpp"
#include "common/math/long_attention.hpp"

namespace {

std::string three(double x) { return format_number(float(x), 3); }
Labels variant_names(const std::vector<VariantRow>& table) {
    Labels labels;
    for (const VariantRow& v : table) labels.push_back(v.name);
    return labels;
}
Labels token_labels(const Tokens& t) {
    Labels labels;
    for (std::size_t v : t) labels.push_back(std::to_string(v));
    return labels;
}
std::string head_name(const CopyTaskSettings& s, std::size_t k) {
    return "L" + std::to_string(k / s.heads + 1) + "H" + std::to_string(k % s.heads);
}
Labels head_names(const CopyTaskSettings& s) {
    Labels labels;
    for (std::size_t k = 0; k < s.layers * s.heads; ++k) labels.push_back(head_name(s, k));
    return labels;
}

// Progress on stderr when it is a terminal.
std::function<Progress(std::size_t)> progress_line() {
    if (!isatty(2)) return {};
    return [](std::size_t row) -> Progress {
        const std::string name = variant_costs()[row].name;
        return [name](int step, int steps, const LoggedStep&) {
            fmt::print(stderr, "\rtraining {}: step {}/{}{}", name, step, steps, step == steps ? "\n" : "");
        };
    };
}
// FLOPs with a unit: "812 k", "4.61 G" (3 significant digits).
std::string flops_text(double x) {
    const char* units[] = {"", " k", " M", " G", " T"};
    std::size_t u = 0;
    while (x >= 1000 && u < 4) x /= 1000, ++u;
    return fmt::format("{}{}", format_number(float(x), x >= 100 ? 0 : x >= 10 ? 1 : 2), units[u]);
}


void show_model(Lesson& lesson, const SparseLesson& r) {
    const CopyTaskSettings& s = r.settings;
    std::size_t trained = 0;
    for (const VariantRun& run : r.runs) trained += run.trained;
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

void show_rolling(Lesson& lesson, const SparseLesson& r) {
    const Variant& v = r.chosen;
    lesson.say(fmt::format(
        "Head {} (the layer-2 head that copies) on held-out sequence 0, decoded one token at a\n"
        "time with a rolling buffer of s = {} sink slot(s) and w = {} window slots: token t < s goes\n"
        "to sink slot t and stays; token t ≥ s goes to slot s + (t mod w), over token t − w, which\n"
        "no later query reads. The buffer holds at most s + w = {} keys, however long the text.",
        head_name(r.settings, r.one.head), v.sinks, v.window, v.sinks + v.window));
    lesson.show("slots", Style().decimals(0));
    lesson.heat_map("weights_full", Style().decimals(1).svg());
    lesson.heat_map("weights_window_sinks", Style().decimals(1).svg());
    lesson.say(fmt::format(
        "The copying head reads key i − L + 1 = i − {} in the second half (the stripe of the\n"
        "full map); with w ≤ {} that key is out of the window, and only the sinks remain far back.",
        r.settings.half_length - 1, r.settings.half_length - 1));
}

void show_window_sweep(Lesson& lesson, const SparseLesson& r) {
    const Matrix& t = r.window_table;
    std::vector<TextRow> table;
    std::vector<double> w, plain, sinks;
    for (std::size_t a = 0; a < rows(t); ++a) {
        table.push_back({fmt::format("{:.0f}", t(a, 0)), three(t(a, 1)), three(t(a, 2)), three(t(a, 3)), three(t(a, 4))});
        w.push_back(t(a, 0)), plain.push_back(t(a, 1)), sinks.push_back(t(a, 3));
    }
    lesson.say(fmt::format(
        "The same trained weights read with a window of w keys at every head of both layers, with\n"
        "no sinks and with the first s = {} tokens kept: held-out accuracy and loss of the second\n"
        "half (the copies), {} sequences. No retraining: the model learned with every key.",
        r.chosen.sinks, held_out_count));
    lesson.table({"window w", "accuracy", "loss", fmt::format("accuracy, {} sinks", r.chosen.sinks), "loss"}, table);
    ChartOptions chart;
    chart.width = 60, chart.height = 10, chart.label_width = 7;
    chart.y_text = [](double y) { return format_number(float(y), 2); };
    chart.ticks = {{1.0, "w = 1"}, {double(r.settings.half_length), fmt::format("{}", r.settings.half_length)},
                   {double(2 * r.settings.half_length), fmt::format("{}", 2 * r.settings.half_length)}};
    lesson.chart("accuracy_window", "Second-half accuracy against the window", {"window w (keys)", false},
                 {"accuracy", false},
                 {{"no sinks", w, plain, "1"}, {fmt::format("{} sinks", r.chosen.sinks), w, sinks, "2"}}, chart);
    lesson.say(fmt::format(
        "With --window {} --sinks {} (the other steps' choice): second-half accuracy {}, loss {}.",
        r.chosen.window, r.chosen.sinks, three(r.windowed.accuracy_second), three(r.windowed.loss_second)));
}

// The head with the largest entry of column c of a (heads × 3) table of shares.
std::size_t most(const Matrix& shares, std::size_t c) {
    std::size_t best = 0;
    for (std::size_t k = 1; k < rows(shares); ++k)
        if (shares(k, c) > shares(best, c)) best = k;
    return best;
}

void show_shares(Lesson& lesson, const SparseLesson& r) {
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

void show_sink_logit(Lesson& lesson, const SparseLesson& r) {
    const CopyTaskSettings& s = r.settings;
    std::vector<TextRow> table;
    for (std::size_t k = 0; k < s.layers * s.heads; ++k)
        table.push_back({head_name(s, k), three(r.shares(k, 0)), three(r.shares(k, 1)), three(r.sink_logits(k, 0)),
                         three(r.sink_shares(k, 0)), three(r.sink_shares(k, 1)), three(r.sink_shares(k, 2))});
    lesson.say(fmt::format(
        "The same model trained again (the same data, {} steps, seed {}) with a sink logit σ_h per\n"
        "head: a_ij = e^(s_ij) / (e^σ_h + Σ_j' e^(s_ij')), so a row may sum to less than 1 and a head\n"
        "may read nothing. Held-out accuracy of the second half: {} (without the sink: {}).\n"
        "Shares of the first half's queries 1 … L − 1, without the sink, then with it:",
        s.steps, s.seed, three(r.sink_after.accuracy_second), three(r.after.accuracy_second)));
    lesson.table({"head", "position 0", "current", "σ_h", "position 0", "current", "the sink"}, table);
    const std::size_t sunk = most(r.sink_shares, 2);
    lesson.say(fmt::format(
        "With a place to put nothing, head {} gives the sink {} of its first-half weight\n"
        "(σ = {}); without it, that head put {} on position 0 and {} on the current token.\n"
        "The copying head {} of the sink model on held-out sequence 0 (rows sum to 1 − the\n"
        "sink's share):",
        head_name(s, sunk), three(r.sink_shares(sunk, 2)), three(r.sink_logits(sunk, 0)), three(r.shares(sunk, 0)),
        three(r.shares(sunk, 1)), head_name(s, r.sink.head)));
    lesson.heat_map("sink_weights", Style().decimals(1).svg());
}

void show_topk(Lesson& lesson, const SparseLesson& r) {
    const Variant& v = r.chosen;
    lesson.say(fmt::format(
        "Top-k: each query keeps the k keys an indexer scores highest, (x_i W_IQ) · (x_j W_IK) with\n"
        "W_IQ, W_IK (d × r): here the best rank-{} copy of the head's own W_Q W_Kᵀ (its truncated\n"
        "SVD). Head {}, k = {}: the kept positions, best first, and the weights.",
        v.indexer_rank, head_name(r.settings, r.one.head), v.top_k));
    lesson.show("topk_index", Style().decimals(0));
    lesson.heat_map("weights_topk", Style().decimals(1).svg());
    const Matrix& t = r.topk_table;
    std::vector<TextRow> table;
    std::vector<double> k, accuracy, exact;
    for (std::size_t a = 0; a < rows(t); ++a) {
        table.push_back({fmt::format("{:.0f}", t(a, 0)), three(t(a, 1)), three(t(a, 2)), format_number(t(a, 3), 4),
                         three(t(a, 4)), three(t(a, 5))});
        k.push_back(t(a, 0)), accuracy.push_back(t(a, 1)), exact.push_back(t(a, 4));
    }
    const std::size_t d_h = r.settings.d_model / r.settings.heads;
    lesson.say(fmt::format(
        "Every head of both layers reading its top k keys: held-out accuracy and loss of the second\n"
        "half; the shown head's largest |output_topk − output_full| on sequence 0; and the same\n"
        "with an indexer of rank d_h = {}, which ranks the keys exactly as the heads do.", d_h));
    lesson.table({"k", "accuracy", "loss", "largest output error", fmt::format("accuracy, r = {}", d_h), "loss"},
                 table);
    ChartOptions chart;
    chart.width = 60, chart.height = 10, chart.label_width = 7;
    chart.y_text = [](double y) { return format_number(float(y), 2); };
    chart.ticks = {{1.0, "k = 1"}, {double(2 * r.settings.half_length), fmt::format("{}", 2 * r.settings.half_length)}};
    lesson.chart("accuracy_topk", "Second-half accuracy against k", {"keys kept k", false}, {"accuracy", false},
                 {{fmt::format("r = {}", v.indexer_rank), k, accuracy, "1"},
                  {fmt::format("r = {} (the heads' ranking)", d_h), k, exact, "2"}}, chart);
    lesson.say(fmt::format("With --top-k {} --rank {} (the maps above): second-half accuracy {}, loss {}.", v.top_k,
                           v.indexer_rank, three(r.indexed.accuracy_second), three(r.indexed.loss_second)));
    std::vector<TextRow> flops;
    for (std::size_t a = 0; a < rows(r.flops_table); ++a)
        flops.push_back({fmt::format("{:.0f}", r.flops_table(a, 0)), fmt::format("{:.0f}", r.flops_table(a, 1)),
                         fmt::format("{:.0f}", r.flops_table(a, 2)), fmt::format("{:.0f}", r.flops_table(a, 3))});
    lesson.say(fmt::format("FLOPs per decoded token and head at this model's size (d = {}, d_h = {}, r = {}, k = {}):",
                           r.settings.d_model, r.settings.d_model / r.settings.heads, v.indexer_rank, v.top_k));
    lesson.table({"keys n", "indexer", "top-k attention", "full attention"}, flops);
}

void show_variants(Lesson& lesson, const SparseLesson& r) {
    const VariantShapes shapes;
    const PublishedModel& m = shapes.model;
    lesson.say(fmt::format(
        "Every variant the tutorial has built, side by side (common/math/attention_variants). What\n"
        "one layer keeps while decoding, in numbers (elements), at DeepSeek-V3's attention shape:\n"
        "h = {}, d_h = {}, d_model = {}; MLA as published (d_c = {}, d_h^R = {}); GQA with g = {};\n"
        "a window of w = {} (Mistral 7B), s = {} sinks (StreamingLLM); top-k with k = {} and an\n"
        "indexer of {} heads of {} (DeepSeek-V3.2).",
        m.h, m.d_h, m.d_model, m.d_c, m.d_rope, shapes.gqa_groups, shapes.window, shapes.sinks, shapes.top_k,
        shapes.indexer_heads, shapes.indexer_width));
    std::vector<TextRow> kept, costs;
    for (const VariantRow& v : r.table) {
        kept.push_back({v.name, v.chapter, v.kept, grouped(v.kept_short), grouped(v.kept_long)});
        costs.push_back({v.name, format_bytes(v.bytes_short), format_bytes(v.bytes_long), flops_text(double(v.flops_short)),
                         flops_text(double(v.flops_long)), three(v.accuracy), v.trained ? "trained" : "MHA's, read"});
    }
    lesson.table({"variant", "chapter", "kept per layer", fmt::format("n = {}", shapes.short_n),
                  fmt::format("n = {}", shapes.long_n)}, kept);
    lesson.say(fmt::format(
        "The cache of all {} layers in bfloat16, FLOPs per decoded token per layer (projections,\n"
        "attention, W_O; top-k with its indexer), and the copy task's second-half accuracy at this\n"
        "chapter's scale (w = {}, s = {}, k = {}, r = {}; {} steps, seed {}):",
        m.layers, r.chosen.window, r.chosen.sinks, r.chosen.top_k, r.chosen.indexer_rank, r.settings.steps,
        r.settings.seed));
    lesson.table({"variant", "cache, 4 k", "128 k", "FLOPs, 4 k", "128 k", "accuracy", "model"}, costs);
}

}  // namespace

int main(int argc, char** argv) {
    set_blas_threads(1);                  // small products: threads would cost more than they save
    mallopt(M_MMAP_THRESHOLD, 64 << 20);  // reuse the step's buffers instead of mapping them anew
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    Lesson lesson("ch20_sparse_attention", "Chapter 20 · Attention that forgets on purpose: windows, sinks and top-k");
    Flags flags;
    add_flags(lesson.cli(), flags);
    return lesson.run(argc, argv, [&] {
        const SparseLesson r = sparse_lesson(copy_task_settings(flags), chosen_variant(flags), progress_line());
        lesson.labels({{"tokens", token_labels(r.held_out[0])}, {"heads", head_names(r.settings)},
                       {"shares", {"position_0", "current", "missing"}},
                       {"slots", numbered("slot", r.chosen.sinks + r.chosen.window)},
                       {"positions", numbered("t", r.held_out[0].size())},
                       {"window_columns", {"w", "accuracy", "loss", "accuracy_sinks", "loss_sinks"}},
                       {"topk_columns", {"k", "accuracy", "loss", "largest_error", "accuracy_exact", "loss_exact"}},
                       {"flops_columns", {"n", "indexer", "topk_attention", "full_attention"}},
                       {"variants", variant_names(r.table)},
                       {"variant_columns", {"kept_4k", "kept_128k", "bytes_4k", "bytes_128k", "flops_4k", "flops_128k",
                                            "accuracy"}}});
        lesson.list(r.matrices());
        lesson.step("model", "The model, trained once", [&] { show_model(lesson, r); });
        lesson.step("rolling-buffer", "A window and sinks in a rolling buffer", [&] { show_rolling(lesson, r); });
        lesson.step("window-sweep", "Accuracy as the window shrinks, with and without sinks",
                    [&] { show_window_sweep(lesson, r); });
        lesson.step("sinks", "Where the weight goes with nothing to copy, and a learned sink", [&] {
            show_shares(lesson, r);
            show_sink_logit(lesson, r);
        });
        lesson.step("top-k", "Top-k keys, chosen by an indexer", [&] { show_topk(lesson, r); });
        lesson.step("variants", "Every variant side by side", [&] { show_variants(lesson, r); });
        lesson.step("checks", "Self-checks", [&] { check_sparse(lesson.checks(), r); });
        lesson.present();
    });
}
