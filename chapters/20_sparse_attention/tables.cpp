#include "chapters/20_sparse_attention/tables.hpp"

#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/display/text_table.hpp"
#include "common/machine/machine_memory.hpp"

std::string three(double x) { return format_number(float(x), 3); }

namespace {

// FLOPs with a unit: "812 k", "4.61 G" (3 significant digits).
std::string flops_text(double x) {
    const char* units[] = {"", " k", " M", " G", " T"};
    std::size_t u = 0;
    while (x >= 1000 && u < 4) x /= 1000, ++u;
    return fmt::format("{}{}", format_number(float(x), x >= 100 ? 0 : x >= 10 ? 1 : 2), units[u]);
}

}  // namespace

void show_window_sweep(Lesson& lesson, const ReadModel& r) {
    const Matrix& t = r.window_table;
    std::vector<TextRow> table;
    std::vector<double> w, plain, sinks;
    // With --sinks 0 both readings are the same: their columns are printed once.
    const bool with_sinks = r.chosen.sinks > 0;
    for (std::size_t a = 0; a < rows(t); ++a) {
        table.push_back({fmt::format("{:.0f}", t(a, 0)), three(t(a, 1)), three(t(a, 2))});
        if (with_sinks) table.back().insert(table.back().end(), {three(t(a, 3)), three(t(a, 4))});
        w.push_back(t(a, 0)), plain.push_back(t(a, 1)), sinks.push_back(t(a, 3));
    }
    lesson.say(fmt::format(
        "The same trained weights read with a window of w keys at every head of both layers, with\n"
        "{}: held-out accuracy and loss of the second\n"
        "half (the copies), {} sequences. No retraining: the model learned with every key.",
        with_sinks ? fmt::format("no sinks and with the first s = {} tokens kept", r.chosen.sinks)
                   : std::string("no sinks (--sinks 0)"),
        held_out_count));
    TextRow header{"window w", "accuracy", "loss"};
    if (with_sinks) header.insert(header.end(), {fmt::format("accuracy, {} sinks", r.chosen.sinks), "loss"});
    lesson.table(header, table);
    ChartOptions chart;
    chart.width = 60, chart.height = 10, chart.label_width = 7;
    chart.y_text = [](double y) { return format_number(float(y), 2); };
    chart.ticks = {{1.0, "w = 1"}, {double(r.settings.half_length), fmt::format("{}", r.settings.half_length)},
                   {double(2 * r.settings.half_length), fmt::format("{}", 2 * r.settings.half_length)}};
    std::vector<Series> series = {{"no sinks", w, plain, "1"}};
    if (with_sinks) series.push_back({fmt::format("{} sinks", r.chosen.sinks), w, sinks, "2"});
    lesson.chart("accuracy_window", "Second-half accuracy against the window", {"window w (keys)", false},
                 {"accuracy", false}, series, chart);
    lesson.say(fmt::format(
        "With --window {} --sinks {} (the other steps' choice): second-half accuracy {}, loss {}.",
        r.chosen.window, r.chosen.sinks, three(r.windowed.accuracy_second), three(r.windowed.loss_second)));
}

void show_topk(Lesson& lesson, const ReadModel& r) {
    const Variant& v = r.chosen;
    lesson.say(fmt::format(
        "Top-k: each query keeps the k keys an indexer scores highest, (x_i W_IQ) · (x_j W_IK) with\n"
        "W_IQ, W_IK (d × r): here the best rank-{} copy of the head's own W_Q W_Kᵀ (its truncated\n"
        "SVD). Head {}, k = {}: the kept positions, best first, and the weights.",
        v.indexer_rank, head_name(r.settings, r.one.head), v.top_k));
    lesson.show(r.one.topk_index, Style().decimals(0));
    lesson.heat_map(r.one.weights_topk, Style().decimals(1).svg());
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

void show_variants(Lesson& lesson, const VariantsSideBySide& r, const CopyTaskSettings& s, const Variant& chosen) {
    const VariantShapes shapes;
    const PublishedModel& m = shapes.model;
    lesson.say(fmt::format(
        "Every variant the tutorial has built, side by side (common/copy_model/attention_variants). What\n"
        "one layer keeps while decoding, in numbers (elements), at DeepSeek-V3's attention shape:\n"
        "h = {}, d_h = {}, d_model = {}; MLA as published (d_c = {}, d_h^R = {}); GQA with g = {};\n"
        "a window of w = {} (Mistral 7B), s = {} sinks (StreamingLLM); top-k with k = {} and an\n"
        "indexer of H^I = {} heads of width d^I = {} (DeepSeek-V3.2), which keeps one indexer key\n"
        "of d^I numbers per token.",
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
        m.layers, chosen.window, chosen.sinks, chosen.top_k, chosen.indexer_rank, s.steps,
        s.seed));
    lesson.table({"variant", "cache, 4 k", "128 k", "FLOPs, 4 k", "128 k", "accuracy", "model"}, costs);
}
