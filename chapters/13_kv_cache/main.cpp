// Chapter 13 · Decoding with a KV cache
//
// The lesson: math.cpp decodes a sentence the way a decoder generates it (a prefill
// of the prompt, then one step per new token, each appending its key and value to
// the cache and attending its query over it), shows every step, counts what a token
// costs with and without the cache, sizes the cache of real models, and bounds it
// with a sliding window (Mistral's rolling buffer). The self-checks compare the
// step-by-step outputs with full causal attention computed at once and with loops
// in double, and the counts with their closed forms. Timings only with --measure.
#include <algorithm>
#include <cfloat>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/13_kv_cache/experiment.hpp"
#include "common/lesson/attention_tolerance.hpp"
#include "common/lesson/elide.hpp"
#include "common/lesson/lesson.hpp"
#include "common/lesson/machine_memory.hpp"
#include "common/lesson/measure_in_child.hpp"
#include "common/lesson/self_check.hpp"
#include "common/lesson/sequence.hpp"
#include "common/lesson/text_table.hpp"
#include "common/math/input_error.hpp"
#include "common/reference/attention_by_loops.hpp"

namespace {

const std::string default_sentence = "the animal didn't cross the street because it was too tired";
constexpr std::size_t default_prefill = 7;
// The cost table and --measure: one head of GPT-2 small (d_model 768, head width 64).
constexpr std::size_t cost_d_model = 768, cost_d = 64;
const std::vector<std::size_t> cost_lengths = {16, 64, 256, 1024, 4096, 16384};
const std::vector<std::size_t> measured_lengths = {256, 1024, 4096};
constexpr std::uint64_t bytes_per_number = 2;  // 16-bit floats, as the models are served
constexpr std::uint64_t table_tokens = 4096;

struct Shown {
    const Sequence& seq;
    Projections W;
    Labels d_q_labels, d_k_labels, d_v_labels;  // the projections' column names
    Decoding dec;
    WindowDecoding win;
    FullAttention full;
    AttentionByLoops loops, window_loops;  // the reference: causal attention by loops in double
    LabelledMatrix models;  // data/kv_cache_models.csv
    std::vector<TokenCost> costs;  // at cost_lengths
};

// Everything the steps show, computed once by math.cpp.
void decode_sentence(Shown& s, const std::string& input, std::size_t prefill, std::size_t window) {
    const LabelledMatrix W_Q = read_data_file("projections/W_Q.csv"), W_K = read_data_file("projections/W_K.csv"),
                         W_V = read_data_file("projections/W_V.csv");
    require_projects(W_Q, s.seq, input.empty() ? data_path("embeddings.csv") : input);
    s.W = {W_Q.values, W_K.values, W_V.values};
    s.d_q_labels = W_Q.columns, s.d_k_labels = W_K.columns, s.d_v_labels = W_V.columns;
    const std::size_t n = rows(s.seq.X);
    if (prefill >= n)
        throw InputError(fmt::format("--prefill {}: the sequence has {} token{}, so the prompt may hold at most {} "
                                     "(one token must be decoded)", prefill, n, n == 1 ? "" : "s", n - 1));
    s.dec = decode_with_cache(s.seq.X, s.W, prefill);
    s.win = decode_with_window(s.seq.X, s.W, prefill, window);
    s.full = full_attention(s.seq.X, s.W, window);
    s.loops = attention_by_loops(s.full.Q, s.full.K, s.full.V, KeysSeen::causal());
    s.window_loops = attention_by_loops(s.full.Q, s.full.K, s.full.V, KeysSeen::causal_window(window));
    for (const std::size_t len : cost_lengths) s.costs.push_back(token_cost(len, cost_d_model, cost_d, cost_d));
}

Labels first_labels(const Labels& l, std::size_t count) { return Labels(l.begin(), l.begin() + long(count)); }

std::string quoted(const std::string& token) { return "\"" + token + "\""; }

// Step sequence: the tokens and what the prompt is.
void show_sequence(Lesson& lesson, const Shown& s) {
    const std::size_t n = s.seq.tokens.size(), p = s.dec.prefill;
    lesson.say(fmt::format(
        "One causal self-attention layer with the hand-made projections of chapter 05\n"
        "(data/projections/, d_k = d_v = {}). A decoder meets the {} tokens in order: the\n"
        "prompt, {} token{}, arrives at once (the prefill), then the layer runs once per\n"
        "new token, {} decode step{}, as if it had just generated that token.",
        cols(s.W.W_K), n, p, p == 1 ? "" : "s", n - p, n - p == 1 ? "" : "s"));
    lesson.show("X", s.seq.X, ShowAs().labels(s.seq.tokens, s.seq.dimensions).decimals(1));
    lesson.keep_for_dump("W_Q", s.W.W_Q);
    lesson.keep_for_dump("W_K", s.W.W_K);
    lesson.keep_for_dump("W_V", s.W.W_V);
}

// Step prefill: the prompt at once.
void show_prefill(Lesson& lesson, const Shown& s) {
    const std::size_t p = s.dec.prefill;
    if (p == 0) {
        lesson.say("No prompt (a prefill of 0 tokens): the cache starts empty and every token is a\n"
                   "decode step.");
        return;
    }
    const Labels prompt = first_labels(s.seq.tokens, p);
    lesson.say(fmt::format(
        "The prompt is known in full, so its {} queries, keys and values are computed at once,\n"
        "as in chapter 06: Q, K, V = X[0, {}) · W, causal mask, one softmax. Its keys and\n"
        "values are the first rows of the cache; its queries are used here and dropped.",
        p, p));
    lesson.show("prefill_weights", s.dec.prompt.weights,
                ShowAs("softmax(Q · Kᵀ / √d_k), causal").labels(prompt, prompt).heat_map());
    lesson.keep_for_dump("prefill_output", s.dec.prompt.output);
    lesson.show_side_by_side(
        {{"K_cache", first_rows(s.dec.cache.K, p), ShowAs("after the prefill").labels(prompt, s.d_k_labels)},
         {"V_cache", first_rows(s.dec.cache.V, p), ShowAs("after the prefill").labels(prompt, s.d_v_labels)}});
}

// One decode step in full: q, k, v, the cache after appending, the strip.
void show_one_step(Lesson& lesson, const Shown& s, std::size_t step) {
    const std::size_t t = s.dec.prefill + step, count = s.seq.tokens.size() - s.dec.prefill;
    const Labels seen = first_labels(s.seq.tokens, t + 1), row{s.seq.tokens[t]};
    const TokenQKV& token = s.dec.tokens[step];
    const Strip& strip = s.dec.strips[step];
    lesson.say(fmt::format("── token {} {}: decode step {} of {} ──", t, quoted(s.seq.tokens[t]), step + 1, count));
    lesson.show_side_by_side({{"q_new", token.q, ShowAs("x · W_Q").labels(row, s.d_q_labels)},
                              {"k_new", token.k, ShowAs("x · W_K").labels(row, s.d_k_labels)},
                              {"v_new", token.v, ShowAs("x · W_V").labels(row, s.d_v_labels)}});
    const std::string appended = fmt::format("+ k_new as row {}", t);
    lesson.show_side_by_side(
        {{"K_cache", first_rows(s.dec.cache.K, t + 1), ShowAs(appended).labels(seen, s.d_k_labels)},
         {"V_cache", first_rows(s.dec.cache.V, t + 1),
          ShowAs(fmt::format("+ v_new as row {}", t)).labels(seen, s.d_v_labels)}});
    lesson.show("strip", strip.weights, ShowAs("softmax(q_new · K_cacheᵀ / √d_k)").labels(row, seen));
    lesson.show("output_new", strip.output, ShowAs("strip · V_cache").labels(row, s.d_v_labels));
}

// Where a strip's weight goes, ties said as ties (at the three decimals printed):
// "most on "animal" (0.384)", "most on 0 "the" and 4 "the" (0.240 each)",
// "the same weight on every key (0.167)", "most on 450 keys (0.001 each), from 2 "t2"".
std::string where_the_strip_looks(const Matrix& strip, const Labels& tokens) {
    const std::size_t best = argmax_of_row(strip, 0), length = cols(strip);
    const std::string most = fmt::format("{:.3f}", strip(0, best));
    std::vector<std::size_t> tied;
    for (std::size_t j = 0; j < length; ++j)
        if (fmt::format("{:.3f}", strip(0, j)) == most) tied.push_back(j);
    const auto key = [&](std::size_t j) { return fmt::format("{} {}", j, quoted(tokens[j])); };
    if (tied.size() == 1) return fmt::format("most on {} ({})", quoted(tokens[best]), most);
    if (tied.size() == length) return fmt::format("the same weight on every key ({})", most);
    if (tied.size() == 2) return fmt::format("most on {} and {} ({} each)", key(tied[0]), key(tied[1]), most);
    return fmt::format("most on {} keys ({} each), from {}", tied.size(), most, key(tied[0]));
}

// Step decode: the first two and last two steps in full, one line for each between.
void show_decode(Lesson& lesson, const Shown& s) {
    const std::size_t count = s.dec.strips.size(), p = s.dec.prefill;
    lesson.say("Each step: the new token's q, k, v (one row each); k and v are appended to the\n"
               "cache; q attends over every cached row, with no mask; its strip of weights\n"
               "times V_cache is the token's output. q is not kept.");
    std::vector<std::size_t> middle;
    for (std::size_t step = 0; step < count; ++step) {
        if (count > 4 && step >= 2 && step + 2 < count) {
            middle.push_back(step);
            if (step + 3 < count) continue;  // the one-line steps, printed once they are all known
            std::string lines = "── the steps between, one line each ──";
            for (const std::size_t k : elided_indices(middle.size(), 10, 4)) {
                if (k == elided) {
                    lines += "\n  …";
                    continue;
                }
                const std::size_t t = p + middle[k];
                lines += fmt::format("\n  token {} {}, {} cached rows: its strip puts {}", t, quoted(s.seq.tokens[t]), t + 1,
                                     where_the_strip_looks(s.dec.strips[middle[k]].weights, s.seq.tokens));
            }
            lesson.say(lines);
            continue;
        }
        show_one_step(lesson, s, step);
    }
}

// Step no-mask: why the queries are not cached and no mask is needed; the strips stacked.
void show_no_mask(Lesson& lesson, const Shown& s, const std::string& checks) {
    const Labels& tokens = s.seq.tokens;
    lesson.say(fmt::format(
        "Why the queries are not cached: q_t is needed only by the step of token t. A later\n"
        "token's output is Σ_j softmax(q_later · k_j / √d_k) v_j: it reads every earlier k\n"
        "and v, and no earlier q. So the cache keeps K and V, and each q is dropped.\n"
        "\n"
        "Why no mask: in training, all n queries are computed at once and the future keys\n"
        "are in K, so they must be hidden (chapter 06). In a decode step the cache holds\n"
        "tokens 0 … t only: the future is not hidden, it does not exist yet. Stack the\n"
        "strips under the prefill's rows and the causal lower triangle appears by itself:"));
    lesson.show("cached_weights", s.dec.weights,
                ShowAs("prefill rows, then one strip per step").labels(tokens, tokens).heat_map());
    lesson.show("output_cached", s.dec.output,
                ShowAs("each token's output, step by step").labels(tokens, s.d_v_labels));
    lesson.show("output_full", s.full.causal.output,
                ShowAs("masked_attention(X·W_Q, X·W_K, X·W_V, causal)").labels(tokens, s.d_v_labels));
    lesson.keep_for_dump("K_cache", s.dec.cache.K);
    lesson.keep_for_dump("V_cache", s.dec.cache.V);
    lesson.keep_for_dump("full_weights", s.full.causal.weights);
    lesson.say(fmt::format("The two are the same numbers ({} compares them, and with loops in double).", checks));
}

std::string time_text(double s) {
    return s < 1e-3 ? fmt::format("{:.1f} µs", s * 1e6) : s < 1.0 ? fmt::format("{:.2f} ms", s * 1e3) : fmt::format("{:.2f} s", s);
}

std::string bytes_cell(double bytes) { return fmt::format("{:>10}", format_bytes(std::uint64_t(bytes))); }

// Step cost: FLOPs and bytes per generated token, with and without the cache.
void show_cost(Lesson& lesson, const std::vector<TokenCost>& costs) {
    lesson.say(
        fmt::format("Without a cache, generating token n − 1 means running the layer over the whole\n"
                    "prefix again: every token's q, k, v, and every query's attention. (One layer\n"
                    "would need only the last query, but in a stack of layers the keys of layer 2 are\n"
                    "made from layer 1's outputs at every position, so every position is recomputed.)\n"
                    "Counted for one head of GPT-2 small (d_model = {}, d_k = d_v = {}), n keys,\n"
                    "a multiply-add as 2 FLOPs, the softmax's n exponentials not counted; bytes read\n"
                    "in float32: the weights, the new x and the n cached rows with the cache; the\n"
                    "weights, all n rows of X, and each query's own keys and values recomputing.",
                    cost_d_model, cost_d));
    std::vector<TextRow> body;
    for (const TokenCost& c : costs)
        body.push_back({fmt::format("{}", c.n), grouped(std::uint64_t(c.flops_cached), 11),
                        grouped(std::uint64_t(c.flops_recomputed), 15),
                        fmt::format("{:.0f}×", c.flops_recomputed / c.flops_cached), bytes_cell(c.bytes_cached),
                        bytes_cell(c.bytes_recomputed)});
    lesson.table({"n", "FLOPs, cache", "FLOPs, recomputing", "ratio", "read, cache", "read, recomputing"}, body);
    const TokenCost& last = costs.back();
    lesson.say(
        fmt::format("With the cache a token costs its own projections ({} FLOPs, the same at every n)\n"
                    "plus 2·n·(d_k + d_v): linear in n, O(n·d). Recomputing adds n projections and\n"
                    "n(n+1)/2 query–key pairs: O(n²·d). At n = {} the cached step does {:.1f} FLOPs per\n"
                    "float it reads, fewer than a processor does while one float arrives from memory:\n"
                    "a decode step waits on memory, and the cache is most of what it reads.",
                    grouped(std::uint64_t(token_cost(0, cost_d_model, cost_d, cost_d).flops_cached)), last.n,
                    last.flops_cached / (last.bytes_cached / 4.0)));
}

// Step memory: real models' caches, from data/kv_cache_models.csv.
void show_memory(Lesson& lesson, const LabelledMatrix& models) {
    lesson.say(
        fmt::format("A model keeps one K and one V per layer and per key–value head, of head_width\n"
                    "numbers per token: bytes per token = 2 · layers · kv_heads · head_width · {}\n"
                    "({}-bit floats). The shapes are in data/kv_cache_models.csv, each with its source\n"
                    "in data/README.md.",
                    bytes_per_number, 8 * bytes_per_number));
    std::vector<TextRow> body;
    for (std::size_t r = 0; r < rows(models.values); ++r) {
        const ModelShape m = model_shape(models.values, r);
        body.push_back({models.rows[r], fmt::format("{}", m.layers), fmt::format("{}/{}", m.kv_heads, m.heads),
                        fmt::format("{}", m.head_width), bytes_cell(double(cache_bytes(m, 1, bytes_per_number))),
                        bytes_cell(double(cache_bytes(m, table_tokens, bytes_per_number))),
                        fmt::format("{}", m.context),
                        bytes_cell(double(cache_bytes(m, m.context, bytes_per_number)))});
    }
    lesson.table({"model", "layers", "KV/heads", "width", "per token", "4096 tokens", "context", "at context"}, body);
    lesson.say(
        "(KV/heads: key–value heads / query heads. \"4096 tokens\" counts every token;\n"
        "\"at context\" is the cache at the model's longest input, with its window if it\n"
        "has one. GPT-2 small reads at most 1024 tokens: its 4096 is arithmetic only.)\n"
        "Llama 2 7B gives every query head its own K and V: 512 KiB per token, 2 GiB at\n"
        "4096 tokens, for one sequence. Mistral 7B shares 8 key–value heads among its 32\n"
        "query heads (grouped-query attention), a quarter of that, and its rolling buffer\n"
        "of 4096 tokens keeps the cache at 512 MiB however long the input grows.");
}

// Step window: the rolling buffer of w slots.
void show_window(Lesson& lesson, const Shown& s) {
    const WindowDecoding& w = s.win;
    const Labels& tokens = s.seq.tokens;
    const std::size_t n = tokens.size();
    lesson.say(fmt::format(
        "With a sliding window of w = {} (--window), token t sees only keys max(0, t−w+1) … t:\n"
        "a band under the diagonal. A key older than w tokens is never read again, so the\n"
        "cache needs only w rows, a rolling buffer: token t's k and v go to slot t mod w,\n"
        "over the token t − w (Mistral 7B does this with w = 4096).{}",
        w.window, w.window >= n ? "\nHere w ≥ n: the band is the whole lower triangle." : ""));
    lesson.show("band_mask", band_mask(n, w.window),
                ShowAs("1 where max(0, i−w+1) ≤ j ≤ i").labels(tokens, tokens).decimals(0).heat_map());
    if (!w.history.empty()) {
        const std::vector<std::size_t> slots = elided_indices(w.window, 8, 3);
        TextRow header{"after token"};
        for (const std::size_t j : slots) header.push_back(j == elided ? "…" : fmt::format("slot {}", j));
        std::vector<TextRow> body;
        for (const std::size_t k : elided_indices(w.history.size(), 10, 4)) {
            if (k == elided) {
                body.push_back({"…"});
                continue;
            }
            TextRow row{fmt::format("{} {}", s.dec.prefill + k, tokens[s.dec.prefill + k])};
            for (const std::size_t j : slots)
                row.push_back(j == elided ? "…" : w.history[k][j] == empty_slot ? "·" : tokens[w.history[k][j]]);
            body.push_back(row);
        }
        lesson.table(header, body);
    }
    Labels slot_labels;
    for (std::size_t j = 0; j < w.buffer.length; ++j)
        slot_labels.push_back(fmt::format("{}:{}", j, tokens[w.token_in_slot[j]]));
    lesson.show_side_by_side({{"window_K_cache", first_rows(w.buffer.K, w.buffer.length),
                               ShowAs("slot: token").labels(slot_labels, s.d_k_labels)},
                              {"window_V_cache", first_rows(w.buffer.V, w.buffer.length),
                               ShowAs("slot: token").labels(slot_labels, s.d_v_labels)}});
    lesson.show("window_weights", w.weights,
                ShowAs("row t: the strip of token t, by position").labels(tokens, tokens).heat_map());
    if (w.window < n)
        lesson.say_under(
            "Row t's weights sit in columns t−w+1 … t. Where the terminal is too narrow for every\n"
            "column, the middle ones are elided (…), and a row whose band falls there looks all\n"
            "zero: a wider terminal (COLUMNS=200) or --dump shows every column.");
    lesson.keep_for_dump("output_window_cached", w.output);
    lesson.keep_for_dump("output_window_full", s.full.windowed.output);
    lesson.say(
        fmt::format("The buffer held at most {} rows for {} tokens. The order of the slots does not\n"
                    "matter: a softmax over keys is the same in any order, and a position encoding\n"
                    "such as RoPE is applied to k before it is cached.",
                    w.most_rows, n));
}

// Step measured (--measure): seconds per generated token on this machine.
void show_measured(Lesson& lesson, const std::vector<MeasuredToken>& measured) {
    lesson.say(
        fmt::format("One head of GPT-2 small again (d_model = {}, d = {}), random inputs; the time of\n"
                    "generating the token at position n − 1, each the best of a few rounds in a child\n"
                    "process (common/lesson/measure_in_child.hpp). These numbers change from run to run.",
                    cost_d_model, cost_d));
    std::vector<TextRow> body;
    for (const MeasuredToken& m : measured)
        body.push_back({fmt::format("{}", m.n), fmt::format("{:>9}", time_text(m.cached_s)),
                        fmt::format("{:>9}", time_text(m.recomputed_s)),
                        fmt::format("{:.0f}×", m.recomputed_s / m.cached_s),
                        fmt::format("{:.0f}×", token_cost(m.n, cost_d_model, cost_d, cost_d).flops_recomputed /
                                                   token_cost(m.n, cost_d_model, cost_d, cost_d).flops_cached)});
    lesson.table({"n", "with the cache", "recomputing", "time ratio", "FLOPs ratio"}, body);
    lesson.say(
        "Both ratios grow with n. Where the time ratio stays below the FLOPs ratio, it is\n"
        "because the recomputation is a few large matrix products that run at the\n"
        "processor's full speed, while a cached step is small work that waits on memory.");
}

// The claims, each against something computed another way.
void check(SelfChecks& check, const Shown& s, const std::vector<MeasuredToken>& measured) {
    const std::size_t n = s.seq.tokens.size(), w = s.win.window;
    const AttentionTolerance tol = attention_tolerance(s.full.Q, s.full.K, s.full.V);
    check.close("the cache holds X · W_K and X · W_V after the last step",
                std::max(max_abs_difference(s.dec.cache.K, s.full.K), max_abs_difference(s.dec.cache.V, s.full.V)),
                scaled_tolerance(1e-5, s.full.K) + scaled_tolerance(1e-5, s.full.V));
    check.close("decoded with the cache = masked_attention, causal, at once",
                max_abs_difference(s.dec.output, s.full.causal.output), tol.output);
    check.close("… = causal attention by loops in double: the outputs", max_abs_difference(s.dec.output, s.loops.output),
                tol.output);
    check.close("… and the weights: the stacked strips are the causal weights",
                max_abs_difference(s.dec.weights, s.loops.weights), tol.weights);
    check.close("every strip sums to 1", worst_row_sum_error(s.dec.weights), row_sum_tolerance(n));
    check.close(fmt::format("the rolling buffer (w = {}) = masked_attention, band mask", w),
                max_abs_difference(s.win.output, s.full.windowed.output), tol.output);
    check.close("… = windowed attention by loops in double: the outputs",
                max_abs_difference(s.win.output, s.window_loops.output), tol.output);
    check.close("… and the weights", max_abs_difference(s.win.weights, s.window_loops.weights), tol.weights);
    check.that(fmt::format("the buffer never held more than min(n, w) = {} rows", std::min(n, w)),
               s.win.most_rows == std::min(n, w) && rows(s.win.buffer.K) == w);
    bool closed = true;
    for (const TokenCost& c : s.costs) {
        const double N = double(c.n), D = double(cost_d_model), k = double(cost_d), v = double(cost_d);
        closed = closed && c.flops_cached == 2 * D * (2 * k + v) + 2 * N * (k + v) &&
                 c.flops_recomputed == 2 * N * D * (2 * k + v) + N * (N + 1) * (k + v) &&
                 c.bytes_cached == 4 * (D * (2 * k + v) + D + N * (k + v)) &&
                 c.bytes_recomputed == 4 * (D * (2 * k + v) + N * D + N * (N + 1) / 2 * (k + v));
    }
    check.that("the cost table's sums equal their closed forms (n(n+1)/2 query–key pairs)", closed);
    bool memory = true;
    for (std::size_t r = 0; r < rows(s.models.values); ++r) {
        const ModelShape m = model_shape(s.models.values, r);
        // Per token: 2 (K, V) · 2 bytes · layers · d_model · kv_heads / heads, as d_model = heads · head_width.
        for (const std::uint64_t tokens : {std::uint64_t{1}, table_tokens, m.context}) {
            const std::uint64_t kept = m.window > 0 ? std::min(tokens, m.window) : tokens;
            memory = memory && m.heads * m.head_width == m.d_model &&
                     cache_bytes(m, tokens, bytes_per_number) * m.heads ==
                         2 * bytes_per_number * m.layers * m.d_model * m.kv_heads * kept;
        }
    }
    check.that("each model's cache = 4 B · layers · d_model · kv_heads / heads a token, to its window",
               memory);
    if (measured.empty()) return;
    double worst = 0.0;
    for (const MeasuredToken& m : measured) worst = std::max(worst, m.difference);
    check.close("--measure: the cached step's output = the recomputed last row, at every n", worst, 1e-4);
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch13_kv_cache", "Chapter 13 · Decoding with a KV cache");
    const std::string& input = lesson.add_input_option("\"" + default_sentence + "\"");
    std::size_t prefill = default_prefill, window = 4;
    bool measure = false;
    CLI::Option* prefill_option =
        lesson.cli().add_option("--prefill", prefill, "tokens of the prompt, computed at once (default: 7, at most n − 1)")
            ->check(CLI::Range(std::size_t{0}, std::size_t{100000}).description(""));
    lesson.cli().add_option("--window", window, "w of the window step: each token sees its last w tokens")
        ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{100000}).description(""));
    lesson.cli().add_flag("--measure", measure, "also time a token with and without the cache (output varies)");
    return lesson.run(argc, argv, [&] {
        const Sequence seq = load_sequence(input, default_sentence, square_matrices_held);
        Shown s{seq, {}, {}, {}, {}, {}, {}, {}, {}, {}, read_data_file("kv_cache_models.csv"), {}};
        decode_sentence(s, input, prefill_option->count() > 0 ? prefill : std::min(default_prefill, rows(seq.X) - 1),
                        window);
        const std::vector<MeasuredToken> measured =
            measure ? measure_per_token(measured_lengths, cost_d_model, cost_d,
                                        [](const std::function<void()>& work) { return measure_in_child(work).seconds; })
                    : std::vector<MeasuredToken>{};
        lesson.step("sequence", "The sentence, read as a decoder meets it", [&] { show_sequence(lesson, s); });
        lesson.step("prefill", "Prefill: the prompt at once fills the cache", [&] { show_prefill(lesson, s); });
        lesson.step("decode", "Decode: one token at a time, over the cache", [&] { show_decode(lesson, s); });
        lesson.step("no-mask", "Why no query is cached and no mask is needed",
                    [&] { show_no_mask(lesson, s, lesson.ref("checks")); });
        lesson.step("cost", "The cost of a token, with and without the cache", [&] { show_cost(lesson, s.costs); });
        lesson.step("memory", "The cache of real models", [&] { show_memory(lesson, s.models); });
        lesson.step("window", "A sliding window: a rolling buffer of w rows", [&] { show_window(lesson, s); });
        if (measure) lesson.step("measured", "Measured: time per token", [&] { show_measured(lesson, measured); });
        lesson.step("checks", "Self-checks", [&] { check(lesson.checks(), s, measured); });
        lesson.present();
    });
}
