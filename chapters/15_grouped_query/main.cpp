// Chapter 15 · Multi-query and grouped-query attention
//
// The lesson: h query heads over g key–value heads (math.cpp), the mapping from one to the
// other as a table, the groups' weights side by side, the same layer as chapter 07's
// multi-head attention, what the other mapping (i mod g) does, and the KV cache it saves
// in two real models; checked against the definition written out as loops in double.
//
// The numbers of X and of the weights are random (seeded, the same on every machine), as in
// chapter 07: the flags change every shape, and what this chapter shows is the bookkeeping.
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/15_grouped_query/checks.hpp"
#include "chapters/15_grouped_query/inputs.hpp"
#include "chapters/15_grouped_query/math.hpp"
#include "common/display/table_rows.hpp"
#include "common/language_model/sentence_option.hpp"
#include "common/lesson/lesson.hpp"

namespace {

// 524288 → "512 KiB", 2621440 → "2 560 KiB", 40 → "40 B".
std::string kib(std::uint64_t bytes) {
    return bytes < 1024        ? fmt::format("{} B", bytes)
           : bytes % 1024 == 0 ? grouped(bytes / 1024) + " KiB"
                               : format_number(float(bytes) / 1024.0f, 1) + " KiB";
}
std::string mib(std::uint64_t mebibytes) { return grouped(mebibytes) + " MiB"; }

// What every step shows: the sequence, the weights and what math.cpp computed, and its shapes.
struct Shown {
    Lesson& lesson;
    const Sequence& seq;
    const GroupedWeights& W;
    const GroupedHeads& r;
    const SequenceSource& input;
    std::size_t n, d_model, h, g, d_k;  // tokens, their width, query heads, key–value heads, a head's width
};

// Step: the sequence.
void show_sequence(const Shown& s) {
    const char* kind = s.g == s.h ? "multi-head attention (g = h)" : s.g == 1 ? "multi-query attention (g = 1)"
                                                                            : "grouped-query attention (1 < g < h)";
    s.lesson.say(fmt::format(
        "{} tokens of width d_model = {}; h = {} query heads of d_k = d_model / h = {} share\n"
        "g = {} key–value head{}, each serving h / g = {} query head{}: {}.\n{}",
        s.n, s.d_model, s.h, s.d_k, s.g, s.g == 1 ? "" : "s", s.h / s.g, s.h / s.g == 1 ? "" : "s", kind,
        s.input.embeddings_said()));
    s.lesson.show(s.seq.X, Style().decimals(2));
}

// Step: the four projections; W_K and W_V are narrower than W_Q.
void show_weights(const Shown& s) {
    s.lesson.say(fmt::format(
        "W_Q is (d_model × h·d_k) = ({} × {}), as in chapter 07. W_K and W_V have only g\n"
        "heads: (d_model × g·d_k) = ({} × {}). Column labels name the head: q1:0 is query\n"
        "head 1's first column, kv1:0 key–value head 1's. W_O is (h·d_v × d_model).",
        s.d_model, s.h * s.d_k, s.d_model, s.g * s.d_k));
    for (const Matrix* m : {&s.W.W_Q, &s.W.W_K, &s.W.W_V, &s.W.W_O}) s.lesson.show(*m, Style().decimals(2));
}

// Step: which key–value head each query head reads, both ways.
void show_mapping(const Shown& s) {
    s.lesson.say(fmt::format(
        "Query head i reads key–value head ⌊i / (h/g)⌋ = ⌊i / {}⌋: the first h/g query heads\n"
        "share key–value head 0, the next h/g head 1, and so on. This is the order of\n"
        "Llama's and Hugging Face's repeat_kv (torch.repeat_interleave). The other way to\n"
        "hand out g heads, i mod g (torch's .repeat, numpy's tile), gives the same shapes\n"
        "and a different model: {} shows what it does.",
        s.h / s.g, s.lesson.ref("tiling")));
    s.lesson.table({"query head i", fmt::format("⌊i / {}⌋ (repeat_kv)", s.h / s.g),
                    fmt::format("i mod {} (tiling)", s.g), "the two"},
                   rows_for(s.h, [&](std::size_t i) {
                       const std::size_t a = s.r.grouped.kv_of[i], b = s.r.tiled.kv_of[i];
                       return TextRow{std::to_string(i), std::to_string(a), std::to_string(b),
                                      a == b ? "same" : "differs"};
                   }));
}

// Step: Q, K and V: h heads of queries, g of keys and values.
void show_projections(const Shown& s) {
    s.lesson.say(fmt::format(
        "Q = X · W_Q has h·d_k columns; K = X · W_K and V = X · W_V only g·d_k = {}.\n"
        "K and V are what a decoder keeps for every past token (its KV cache): here\n"
        "2 × ({} × {}) numbers instead of 2 × ({} × {}) with one key–value head per query head.",
        s.g * s.d_k, s.n, s.g * s.d_k, s.n, s.h * s.d_k));
    for (const Matrix* m : {&s.r.grouped.Q, &s.r.grouped.K, &s.r.grouped.V}) s.lesson.show(*m, Style().decimals(2));
}

// Step: group by group, the weights of the query heads that share one K_j.
void show_groups(const Shown& s) {
    const std::size_t per = s.h / s.g;
    s.lesson.say(fmt::format(
        "head{{i}}_weights = softmax(Q_i · K_jᵀ / √{}) with j = ⌊i / {}⌋. The heads of one group\n"
        "compare their own queries with the same keys K_j, so their weights still differ;\n"
        "they all weigh the same values V_j. No mask here: every token sees every token, so\n"
        "that the maps are whole. A decoder adds chapter 06's causal mask (its cache holds\n"
        "only the past, chapter 13); the sharing of K and V is the same with or without it.",
        s.d_k, per));
    for (std::size_t j = 0; j < s.g; ++j) {
        s.lesson.say(
            fmt::format("key–value head {} (columns {}:{} of K and V) serves query head{} {}", j, j * s.d_k,
                        (j + 1) * s.d_k, per == 1 ? "" : "s",
                        per == 1 ? fmt::format("{}", j) : fmt::format("{} to {}", j * per, (j + 1) * per - 1)));
        std::vector<Lesson::SideBySide> weights;
        for (std::size_t i = j * per; i < (j + 1) * per; ++i)  // the formula is said above
            weights.push_back({s.r.grouped.weights[i], Style().svg()});
        s.lesson.show_side_by_side(weights);
    }
}

// Step: concat and output.
void show_concat(const Shown& s) {
    s.lesson.say(fmt::format(
        "As in chapter 07: the h heads' outputs side by side, (n × h·d_v) = ({} × {}), mixed\n"
        "by W_O back to d_model = {}. Only K and V were shared; every query head has its output.",
        s.n, s.h * s.d_k, s.d_model));
    s.lesson.show(s.r.grouped.concat);
    s.lesson.show(s.r.grouped.output);
}

// Step: the same layer as chapter 07's multi-head attention.
void show_as_multi_head(const Shown& s) {
    s.lesson.say(fmt::format(
        "Repeat each key–value head's d_k columns of W_K and W_V h/g = {} times in a row and\n"
        "the layer is chapter 07's multi-head attention (common/attention/multi_head) with {} heads:\n"
        "(d_model × g·d_k) → (d_model × h·d_k). That is what repeat_kv does to K and V before\n"
        "a multi-head kernel; a grouped kernel reads K_j once for its h/g query heads instead.{}",
        s.h / s.g, s.h, s.g == s.h ? "\nHere g = h: nothing is repeated, and the weights are chapter 07's own." : ""));
    s.lesson.show(s.r.W_K_repeated, Style().decimals(2));
    s.lesson.show(s.r.as_multi_head.output);
}

// Step: the tiling i mod g: the same weights, another model.
void show_tiling(const Shown& s) {
    s.lesson.say(fmt::format(
        "Read the same weights with i mod g and every shape still fits: no error, no warning,\n"
        "another output. Query head i now weighs a key–value head trained for other queries.\n"
        "At g = 1 (every i mod 1 = 0 = ⌊i / h⌋) and at g = h (i mod h = i = ⌊i / 1⌋) the two\n"
        "mappings agree, so a test of multi-head or multi-query attention alone cannot catch it.{}",
        s.g == 1 || s.g == s.h ? fmt::format("\nHere g = {}: the two agree.", s.g) : ""));
    std::vector<TextRow> body;
    for (std::size_t i = 0; i < s.h; ++i)
        body.push_back({fmt::format("{}", i), fmt::format("{}", s.r.grouped.kv_of[i]),
                        fmt::format("{}", s.r.tiled.kv_of[i]), format_number(s.r.weights_moved[i], 3)});
    s.lesson.table({"query head", "reads (⌊i / (h/g)⌋)", "tiling reads (i mod g)", "largest weight change"}, body);
    s.lesson.show(s.r.tiled.output);
    s.lesson.say("largest |output_tiled − output| = " + format_number(s.r.output_moved, 3));
}

// Step: the KV cache per token, in this chapter and in two real models.
void show_cache(const Shown& s) {
    s.lesson.say(
        "A decoder keeps the K and V of every past token in every layer, so that a new token\n"
        "computes only its own. Per token that is\n"
        "    bytes = 2 (K and V) × layers × g × d_k × bytes per number,\n"
        "here with 2 bytes a number (float16 or bfloat16, as the models are served). The\n"
        "column g = h is what the same model would keep with multi-head attention, g = 1\n"
        "with multi-query attention.");
    std::vector<TextRow> body, context;
    const std::vector<ModelCache> models = real_models();
    for (const ModelCache& m : models) {
        body.push_back({m.name, std::to_string(m.layers), std::to_string(m.h), std::to_string(m.g),
                        std::to_string(m.d_k), kib(m.with_h), kib(m.with_g), kib(m.with_1),
                        fmt::format("{}×", m.with_h / m.with_g)});
        context.push_back({m.name, mib(m.context_mib_h), mib(m.context_mib_g), mib(m.context_mib_1)});
    }
    s.lesson.say("KV cache per token:\n" +
                 format_table({"model", "layers", "h", "g", "d_k", "g = h", "the model's g", "g = 1", "h / g"}, body));
    s.lesson.say("for one sequence of " + grouped(context_tokens) + " tokens:\n" +
                 format_table({"model", "g = h", "the model's g", "g = 1"}, context));
    std::string sources = "where the numbers come from:";
    for (const ModelCache& m : models)
        for (std::size_t line = 0; line < m.source.size(); ++line)
            sources += fmt::format("\n  {:<12} {}", line == 0 ? m.name : "", m.source[line]);
    s.lesson.say(sources);
    s.lesson.say(fmt::format("This chapter's cache is its K and V, ({} × {}) each in float32 (4 bytes): {} bytes,\n"
                             "{} a token = 2 × 1 layer × {} × {} × 4; with g = h it would be {}.",
                             s.n, s.g * s.d_k, s.r.cache_bytes, s.r.cache_per_token, s.g, s.d_k,
                             s.r.cache_per_token_with_h));
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson;  // named and titled by chapter.toml
    const SequenceSource& input = add_sentence_options(lesson, input_help);
    Flags f;
    add_flags(lesson, f);
    return lesson.run(argc, argv, [&] {
        const Inputs in = draw_inputs(input, f, lesson.given("--d-model"));
        const GroupedHeads r = grouped_heads(in.seq.X, in.W, f.h, f.g);
        const Shown s{lesson, in.seq, in.W, r, input, rows(in.seq.X), cols(in.seq.X), f.h, f.g, r.d_k};
        lesson.labels({{"tokens", in.seq.tokens}, {"dimensions", in.seq.dimensions},
                       {"query columns", r.query_columns}, {"kv columns", r.kv_columns}});
        lesson.list(in.seq.matrices());
        lesson.list(in.W.matrices());
        lesson.list(r.matrices());
        lesson.step("sequence", "The sequence", [&] { show_sequence(s); });
        lesson.step("weights", "The weights: h query heads, g key–value heads", [&] { show_weights(s); });
        lesson.step("mapping", "Which key–value head each query head reads", [&] { show_mapping(s); });
        lesson.step("projections", "Q, K and V: fewer keys and values", [&] { show_projections(s); });
        lesson.step("groups", "Group by group: query heads that share K_j and V_j", [&] { show_groups(s); });
        lesson.step("concat", "Concatenate the heads, then mix them with W_O", [&] { show_concat(s); });
        lesson.step("as-multi-head", "The same as multi-head attention with repeated heads",
                    [&] { show_as_multi_head(s); });
        lesson.step("tiling", "The other mapping, i mod g: same shapes, another model", [&] { show_tiling(s); });
        lesson.step("cache", "What it saves: the KV cache", [&] { show_cache(s); });
        lesson.step("checks", "Self-checks", [&] { check_grouped(lesson.checks(), in.seq.X, in.W, r); });
        lesson.present();
    });
}
