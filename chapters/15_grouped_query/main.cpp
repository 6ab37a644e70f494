// Chapter 15 · Multi-query and grouped-query attention
//
// The lesson: h query heads over g key–value heads (math.cpp), the mapping from one to the
// other as a table, the groups' weights side by side, the same layer as chapter 07's
// multi-head attention, what the other mapping (i mod g) does, and the KV cache it saves
// in two real models; checked against the definition written out as loops in double.
//
// The numbers of X and of the weights are random (seeded, the same on every machine), as in
// chapter 07: the flags change every shape, and what this chapter shows is the bookkeeping.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/15_grouped_query/math.hpp"
#include "common/lesson/lesson.hpp"
#include "common/lesson/sequence.hpp"
#include "common/lesson/text_table.hpp"
#include "common/math/input_error.hpp"

namespace {

const std::string default_sentence = "the cat sat on the mat";

// A real model's attention shape, with where the numbers come from.
struct ModelShape {
    std::string name;
    std::uint64_t layers, h, g, d_k;
    std::string source;
};

const std::vector<ModelShape> models = {
    {"Mistral 7B", 32, 32, 8, 128, "Jiang et al. 2023, \"Mistral 7B\", Table 1"},
    {"Llama 2 70B", 80, 64, 8, 128,
     "Touvron et al. 2023, \"Llama 2\", §2.2 and A.2.1 (GQA, 8 key–value heads);\n"
     "               80 layers, 64 heads of 128: Llama 1 65B's (\"LLaMA\", Table 2), kept"},
};

// "q0:0", "q0:1", …: which query head a column of W_Q (or a row of W_O) belongs to;
// "kv0:0", …: which key–value head a column of W_K or W_V belongs to.
Labels head_labels(const std::string& prefix, std::size_t heads, std::size_t d_k) {
    Labels labels;
    for (std::size_t i = 0; i < heads; ++i)
        for (std::size_t c = 0; c < d_k; ++c) labels.push_back(fmt::format("{}{}:{}", prefix, i, c));
    return labels;
}

// 524288 → "512 KiB", 2621440 → "2 560 KiB", 40 → "40 B".
std::string kib(std::uint64_t bytes) {
    return bytes < 1024 ? fmt::format("{} B", bytes)
                        : bytes % 1024 == 0 ? grouped(bytes / 1024) + " KiB" : fmt::format("{:.1f} KiB", double(bytes) / 1024.0);
}

// The sequence: the default sentence with random embeddings, or --input; h must divide
// d_model and g must divide h.
Sequence the_sequence(Lesson& lesson, const std::string& input, std::size_t d_model, std::size_t h, std::size_t g,
                      Random& random) {
    Sequence seq = random_or_input_sequence(input, default_sentence, d_model,
                                            lesson.cli().count("--d-model") > 0, random, square_matrices_held(h));
    if (cols(seq.X) % h != 0)
        throw InputError(fmt::format("--heads {} does not divide {} {}: each query head gets d_model / h columns, so "
                                     "h must divide d_model",
                                     h, input.empty() ? "--d-model" : "the width of --input " + input + ",",
                                     cols(seq.X)));
    if (h % g != 0)
        throw InputError(fmt::format("--kv-heads {} does not divide --heads {}: each key–value head serves h / g "
                                     "query heads, so g must divide h",
                                     g, h));
    return seq;
}

// What every step shows: the sequence, the weights and what math.cpp computed.
struct Shown {
    Lesson& lesson;
    const Sequence& seq;
    const GroupedWeights& W;
    const GroupedLesson& r;
    const std::string& input;
    Labels q_cols, kv_cols;  // "q0:0", …; "kv0:0", …
};

std::string kind_of(std::size_t h, std::size_t g) {
    return g == h ? "multi-head attention (g = h)" : g == 1 ? "multi-query attention (g = 1)"
                                                            : "grouped-query attention (1 < g < h)";
}

// Step: the sequence.
void show_sequence(const Shown& s) {
    const std::size_t h = s.r.h, g = s.r.g;
    s.lesson.say(fmt::format(
        "{} tokens of width d_model = {}; h = {} query heads of d_k = d_model / h = {} share\n"
        "g = {} key–value head{}, each serving h / g = {} query head{}: {}.\n{}",
        rows(s.seq.X), cols(s.seq.X), h, s.r.d_k, g, g == 1 ? "" : "s", h / g, h / g == 1 ? "" : "s", kind_of(h, g),
        s.input.empty() ? "The embeddings are random (seeded): a repeated word has the same row."
                        : "The embeddings are the rows of " + s.input + "."));
    s.lesson.show("X", s.seq.X, ShowAs().labels(s.seq.tokens, s.seq.dimensions).decimals(2));
}

// Step: the four projections; W_K and W_V are narrower than W_Q.
void show_weights(const Shown& s) {
    const std::size_t d_model = cols(s.seq.X), h = s.r.h, g = s.r.g, d_k = s.r.d_k;
    s.lesson.say(fmt::format(
        "W_Q is (d_model × h·d_k) = ({} × {}), as in chapter 07. W_K and W_V have only g\n"
        "heads: (d_model × g·d_k) = ({} × {}). Column labels name the head: q1:0 is query\n"
        "head 1's first column, kv1:0 key–value head 1's. W_O is (h·d_v × d_model).",
        d_model, h * d_k, d_model, g * d_k));
    s.lesson.show("W_Q", s.W.W_Q, ShowAs().labels(s.seq.dimensions, s.q_cols).decimals(2));
    s.lesson.show("W_K", s.W.W_K, ShowAs().labels(s.seq.dimensions, s.kv_cols).decimals(2));
    s.lesson.show("W_V", s.W.W_V, ShowAs().labels(s.seq.dimensions, s.kv_cols).decimals(2));
    s.lesson.show("W_O", s.W.W_O, ShowAs().labels(s.q_cols, s.seq.dimensions).decimals(2));
}

// Step: which key–value head each query head reads, both ways.
void show_mapping(const Shown& s) {
    const std::size_t h = s.r.h, g = s.r.g;
    s.lesson.say(fmt::format(
        "Query head i reads key–value head ⌊i / (h/g)⌋ = ⌊i / {}⌋: the first h/g query heads\n"
        "share key–value head 0, the next h/g head 1, and so on. This is the order of\n"
        "Llama's and Hugging Face's repeat_kv (torch.repeat_interleave). The other way to\n"
        "hand out g heads, i mod g (torch's .repeat, numpy's tile), gives the same shapes\n"
        "and a different model: {} shows what it does.",
        h / g, s.lesson.ref("tiling")));
    std::vector<TextRow> body;
    for (std::size_t i = 0; i < h; ++i) {
        const std::size_t a = s.r.grouped.kv_of[i], b = s.r.tiled.kv_of[i];
        body.push_back({fmt::format("{}", i), fmt::format("{}", a), fmt::format("{}", b), a == b ? "same" : "differs"});
    }
    s.lesson.table({"query head i", fmt::format("⌊i / {}⌋ (repeat_kv)", h / g), fmt::format("i mod {} (tiling)", g),
                    "the two"},
                   body);
}

// Step: Q, K and V: h heads of queries, g of keys and values.
void show_projections(const Shown& s) {
    const std::size_t n = rows(s.seq.X), g = s.r.g, d_k = s.r.d_k;
    s.lesson.say(fmt::format(
        "Q = X · W_Q has h·d_k columns; K = X · W_K and V = X · W_V only g·d_k = {}.\n"
        "K and V are what a decoder keeps for every past token (its KV cache): here\n"
        "2 × ({} × {}) numbers instead of 2 × ({} × {}) with one key–value head per query head.",
        g * d_k, n, g * d_k, n, s.r.h * d_k));
    s.lesson.show("Q", s.r.grouped.Q, ShowAs("X · W_Q").labels(s.seq.tokens, s.q_cols).decimals(2));
    s.lesson.show("K", s.r.grouped.K, ShowAs("X · W_K").labels(s.seq.tokens, s.kv_cols).decimals(2));
    s.lesson.show("V", s.r.grouped.V, ShowAs("X · W_V").labels(s.seq.tokens, s.kv_cols).decimals(2));
}

// Step: group by group, the weights of the query heads that share one K_j.
void show_groups(const Shown& s) {
    const std::size_t h = s.r.h, g = s.r.g, per = h / g, d_k = s.r.d_k;
    s.lesson.say(fmt::format(
        "head{{i}}_weights = softmax(Q_i · K_jᵀ / √{}) with j = ⌊i / {}⌋. The heads of one group\n"
        "compare their own queries with the same keys K_j, so their weights still differ;\n"
        "they all weigh the same values V_j. No mask here: every token sees every token, so\n"
        "that the maps are whole. A decoder adds chapter 06's causal mask (its cache holds\n"
        "only the past, chapter 13); the sharing of K and V is the same with or without it.",
        d_k, per));
    for (std::size_t j = 0; j < g; ++j) {
        s.lesson.say(
            fmt::format("key–value head {} (columns {}:{} of K and V) serves query head{} {}", j, j * d_k,
                        (j + 1) * d_k, per == 1 ? "" : "s",
                        per == 1 ? fmt::format("{}", j) : fmt::format("{} to {}", j * per, (j + 1) * per - 1)));
        std::vector<Lesson::Shown> weights;
        for (std::size_t i = j * per; i < (j + 1) * per; ++i)  // the formula is said above
            weights.push_back({fmt::format("head{}_weights", i), s.r.grouped.weights[i],
                               ShowAs().labels(s.seq.tokens, s.seq.tokens).heat_map()});
        s.lesson.show_side_by_side(weights);
    }
}

// Step: concat and output.
void show_concat(const Shown& s) {
    s.lesson.say(fmt::format(
        "As in chapter 07: the h heads' outputs side by side, (n × h·d_v) = ({} × {}), mixed\n"
        "by W_O back to d_model = {}. Only K and V were shared; every query head has its output.",
        rows(s.seq.X), s.r.h * s.r.d_k, cols(s.seq.X)));
    s.lesson.show("concat", s.r.grouped.concat, ShowAs("[head0_output, …]").labels(s.seq.tokens, s.q_cols));
    s.lesson.show("output", s.r.grouped.output, ShowAs("concat · W_O").labels(s.seq.tokens, s.seq.dimensions));
}

// Step: the same layer as chapter 07's multi-head attention.
void show_as_multi_head(const Shown& s) {
    const std::size_t h = s.r.h, g = s.r.g;
    s.lesson.say(fmt::format(
        "Repeat each key–value head's d_k columns of W_K and W_V h/g = {} times in a row and\n"
        "the layer is chapter 07's multi-head attention (common/math/multi_head) with {} heads:\n"
        "(d_model × g·d_k) → (d_model × h·d_k). That is what repeat_kv does to K and V before\n"
        "a multi-head kernel; a grouped kernel reads K_j once for its h/g query heads instead.{}",
        h / g, h, g == h ? "\nHere g = h: nothing is repeated, and the weights are chapter 07's own." : ""));
    const Labels repeated = head_labels("q", h, s.r.d_k);
    s.lesson.show("W_K_repeated", s.r.W_K_repeated,
                  ShowAs("W_K, each head's block h/g times").labels(s.seq.dimensions, repeated).decimals(2));
    s.lesson.keep_for_dump("W_V_repeated", s.r.W_V_repeated, s.seq.dimensions, repeated);
    s.lesson.show(
        "output_multi_head", s.r.as_multi_head.output,
        ShowAs("multi_head_attention(X, W_Q, W_K_repeated, W_V_repeated, W_O)").labels(s.seq.tokens, s.seq.dimensions));
}

// Step: the tiling i mod g: the same weights, another model.
void show_tiling(const Shown& s) {
    const std::size_t h = s.r.h, g = s.r.g;
    s.lesson.say(fmt::format(
        "Read the same weights with i mod g and every shape still fits: no error, no warning,\n"
        "another output. Query head i now weighs a key–value head trained for other queries.\n"
        "At g = 1 (every i mod 1 = 0 = ⌊i / h⌋) and at g = h (i mod h = i = ⌊i / 1⌋) the two\n"
        "mappings agree, so a test of multi-head or multi-query attention alone cannot catch it.{}",
        g == 1 || g == h ? fmt::format("\nHere g = {}: the two agree.", g) : ""));
    std::vector<TextRow> body;
    for (std::size_t i = 0; i < h; ++i)
        body.push_back({fmt::format("{}", i), fmt::format("{}", s.r.grouped.kv_of[i]),
                        fmt::format("{}", s.r.tiled.kv_of[i]),
                        fmt::format("{:.3f}", max_abs_difference(s.r.grouped.weights[i], s.r.tiled.weights[i]))});
    s.lesson.table({"query head", "reads (⌊i / (h/g)⌋)", "tiling reads (i mod g)", "largest weight change"}, body);
    for (std::size_t i = 0; i < h; ++i)
        s.lesson.keep_for_dump(fmt::format("head{}_weights_tiled", i), s.r.tiled.weights[i]);
    s.lesson.show("output_tiled", s.r.tiled.output,
                  ShowAs("the same weights read with i mod g").labels(s.seq.tokens, s.seq.dimensions));
    s.lesson.say(fmt::format("largest |output_tiled − output| = {:.3f}",
                             max_abs_difference(s.r.tiled.output, s.r.grouped.output)));
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
    for (const ModelShape& m : models) {
        const std::uint64_t mha = kv_cache_bytes_per_token(m.layers, m.h, m.d_k, 2),
                            ours = kv_cache_bytes_per_token(m.layers, m.g, m.d_k, 2),
                            mqa = kv_cache_bytes_per_token(m.layers, 1, m.d_k, 2);
        body.push_back({m.name, std::to_string(m.layers), std::to_string(m.h), std::to_string(m.g),
                        std::to_string(m.d_k), kib(mha), kib(ours), kib(mqa), fmt::format("{}×", mha / ours)});
        context.push_back({m.name, grouped(mha * 4096 >> 20) + " MiB", grouped(ours * 4096 >> 20) + " MiB",
                           grouped(mqa * 4096 >> 20) + " MiB"});
    }
    s.lesson.say("KV cache per token:\n" +
                 format_table({"model", "layers", "h", "g", "d_k", "g = h", "the model's g", "g = 1", "h / g"}, body));
    s.lesson.say("for one sequence of 4 096 tokens:\n" +
                 format_table({"model", "g = h", "the model's g", "g = 1"}, context));
    std::string sources = "where the numbers come from:";
    for (const ModelShape& m : models) sources += fmt::format("\n  {:<12} {}", m.name, m.source);
    s.lesson.say(sources);
    const std::size_t n = rows(s.seq.X), g = s.r.g, d_k = s.r.d_k;
    s.lesson.say(
        fmt::format("This chapter's cache is its K and V, ({} × {}) each in float32 (4 bytes): {} bytes,\n"
                    "{} a token = 2 × 1 layer × {} × {} × 4; with g = h it would be {}.",
                    n, g * d_k, 2 * n * g * d_k * 4, kv_cache_bytes_per_token(1, g, d_k, 4), g, d_k,
                    kv_cache_bytes_per_token(1, s.r.h, d_k, 4)));
}

double largest(const Matrix& m) {
    double most = 0.0;
    for (const float v : m) most = std::max(most, double(std::abs(v)));
    return most;
}

// The tiling against the real mapping: different for 1 < g < h, the same otherwise.
void check_tiling(SelfChecks& check, const GroupedLesson& r) {
    const std::size_t h = r.h, g = r.g;
    const double moved = max_abs_difference(r.tiled.output, r.grouped.output);
    if (g == 1 || g == h)
        return (void)check.that(fmt::format("g = {}: the tiling i mod g is the same mapping, and gives the same output",
                                            g == 1 ? "1" : "h"),
                                r.tiled.kv_of == r.grouped.kv_of && moved == 0.0);
    std::size_t first = 0;  // the first query head the two orders send to different key–value heads
    while (first < h && r.tiled.kv_of[first] == r.grouped.kv_of[first]) ++first;
    check.that(first < h ? fmt::format("1 < g < h: the tiling reads another key–value head for some query head "
                                       "(head {}: {} instead of {})",
                                       first, r.tiled.kv_of[first], r.grouped.kv_of[first])
                         : "1 < g < h: the tiling reads another key–value head for some query head (here none does)",
               first < h);
    const std::string claim = "1 < g < h: the tiling changes the output";
    if (largest(r.grouped.V) == 0.0)
        return check.skip(claim, "every value is 0 (X · W_V = 0): every head's output is 0 whichever it reads");
    check.that(fmt::format("{} (largest |output_tiled − output| = {:.3f})", claim, moved),
               moved > 1e-3 * largest(r.grouped.output));
}

// Each claim against something computed another way: the mapping against repeat_kv's order
// written here, the layer against loops in double (math.cpp, sharing nothing with the attention
// of common/math, so a wrong scaling there shows) and against chapter 07's multi-head attention.
void check(SelfChecks& check, const Matrix& X, const GroupedWeights& W, const GroupedLesson& r) {
    const std::size_t n = rows(X), h = r.h, g = r.g, d_k = r.d_k;
    std::vector<std::size_t> repeat_kv, tile;  // [0, 0, 1, 1] and [0, 1, 0, 1] for h = 4, g = 2
    for (std::size_t j = 0; j < g; ++j) repeat_kv.insert(repeat_kv.end(), h / g, j);
    for (std::size_t copy = 0; copy < h / g; ++copy)
        for (std::size_t j = 0; j < g; ++j) tile.push_back(j);
    check.that("query head i reads key–value head ⌊i / (h/g)⌋: repeat_kv's order, each head h/g times in a row",
               r.grouped.kv_of == repeat_kv);
    check.that("the tiling reads key–value head i mod g: 0, 1, …, g−1, then again", r.tiled.kv_of == tile);
    double loops_error = 0.0, tiled_error = 0.0, row_sum_error = 0.0;
    for (std::size_t i = 0; i < h; ++i) {
        loops_error = std::max(loops_error, max_abs_difference(r.grouped.weights[i], r.by_loops.weights[i]));
        tiled_error = std::max(tiled_error, max_abs_difference(r.tiled.weights[i], r.tiled_by_loops.weights[i]));
        row_sum_error = std::max(row_sum_error, worst_row_sum_error(r.grouped.weights[i]));
    }
    // A float32 score is off by about (d_model + d_k) roundings of the size its terms have
    // (score_size); a weight moves by less than its score, an output by n weights' worth of values.
    const auto weights_tolerance = [&](const ByLoops& b) {
        return std::max(1e-5, double(cols(X) + d_k) * FLT_EPSILON * b.score_size);
    };
    const auto output_tolerance = [&](const ByLoops& b) {
        return scaled_tolerance(1e-4, b.output) + weights_tolerance(b) * double(n) * b.value_size;
    };
    check.close("weights = softmax(q·k_j/√d_k), j = kv(i), as loops in double",
                loops_error, weights_tolerance(r.by_loops));
    check.close("output = Σ_j w_j v_j of every head, · W_O, as loops in double",
                max_abs_difference(r.grouped.output, r.by_loops.output), output_tolerance(r.by_loops));
    check.close("every row of every head's weights sums to 1", row_sum_error, row_sum_tolerance(n));
    const std::string same = "g = h: output = chapter 07's multi-head layer, same weights";
    if (g == h)
        check.close(same,
                    max_abs_difference(r.grouped.output, multi_head_attention(X, W.W_Q, W.W_K, W.W_V, W.W_O, h).output),
                    scaled_tolerance(1e-4, r.grouped.output));
    else
        check.skip(same, fmt::format("g = {} < h = {}", g, h));
    check.close("output = chapter 07's multi-head attention, kv heads repeated",
                max_abs_difference(r.grouped.output, r.as_multi_head.output), scaled_tolerance(1e-4, r.grouped.output));
    check.close("tiled weights = loops in double that read kv head i mod g", tiled_error,
                weights_tolerance(r.tiled_by_loops));
    check.close("tiled output = loops in double that read kv head i mod g",
                max_abs_difference(r.tiled.output, r.tiled_by_loops.output), output_tolerance(r.tiled_by_loops));
    check_tiling(check, r);
    check.that("Mistral 7B, g = 8: 2 × 32 × 8 × 128 × 2 = 131 072 bytes a token (128 KiB; 512 KiB at g = h)",
               kv_cache_bytes_per_token(32, 8, 128, 2) == 131072 && kv_cache_bytes_per_token(32, 32, 128, 2) == 524288);
    check.that("Llama 2 70B, g = 8: 2 × 80 × 8 × 128 × 2 = 327 680 bytes a token (320 KiB; 2 560 KiB at g = h)",
               kv_cache_bytes_per_token(80, 8, 128, 2) == 327680 && kv_cache_bytes_per_token(80, 64, 128, 2) == 2621440);
    check.that("this chapter's K and V hold n × the bytes of one token (1 layer, float32)",
               (r.grouped.K.size() + r.grouped.V.size()) * 4 == n * kv_cache_bytes_per_token(1, g, d_k, 4));
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch15_grouped_query", "Chapter 15 · Multi-query and grouped-query attention");
    const std::string& input = lesson.add_input_option(
        "\"" + default_sentence + "\" with random embeddings of width --d-model; with --input, d_model is the file's width");
    std::size_t h = 4, g = 2, d_model_flag = 8;
    std::uint64_t seed = 15;
    lesson.cli().add_option("--heads", h, "h, the number of query heads (1 to 64); must divide d_model")
        ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{64}).description(""));
    lesson.cli().add_option("--kv-heads", g, "g, the number of key–value heads (1 to 64); must divide h")
        ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{64}).description(""));
    lesson.cli().add_option("--d-model", d_model_flag, "d_model, the width of the embeddings (1 to 512; without --input)")
        ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{512}).description(""));
    lesson.cli().add_option("--seed", seed, "seed of the random embeddings and weights")->capture_default_str();

    return lesson.run(argc, argv, [&] {
        Random random(seed);
        const Sequence seq = the_sequence(lesson, input, d_model_flag, h, g, random);
        const GroupedWeights W = random_weights(cols(seq.X), h, g, random);
        const GroupedLesson r = grouped_lesson(seq.X, W, h, g);
        const Shown s{lesson, seq, W, r, input, head_labels("q", h, r.d_k), head_labels("kv", g, r.d_k)};
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
        lesson.step("checks", "Self-checks", [&] { check(lesson.checks(), seq.X, W, r); });
        lesson.present();
    });
}
