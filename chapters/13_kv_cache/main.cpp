// Chapter 13 · Decoding with a KV cache
//
// The lesson: math.cpp decodes a sentence the way a decoder generates it (a prefill of the
// prompt, then one step per new token, appending its key and value to the cache and
// attending its query over it); the steps show it, count what a token costs with and without
// the cache, size the cache of real models and bound it with a sliding window (Mistral's
// rolling buffer); checks.cpp checks it. Timings only with --measure.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/13_kv_cache/checks.hpp"
#include "chapters/13_kv_cache/experiment.hpp"
#include "chapters/13_kv_cache/inputs.hpp"
#include "chapters/13_kv_cache/math.hpp"
#include "common/display/elide.hpp"
#include "common/display/time_text.hpp"
#include "common/inputs/sequence.hpp"
#include "common/lesson/lesson.hpp"
#include "common/machine/machine_memory.hpp"
#include "common/machine/measure_in_child.hpp"

namespace {

using C = DecodingCosts;  // the cost table's head (C::d_model, C::d), the models' bytes per number

// What the steps show: the inputs and what math.cpp computed.
struct Shown {
    const Inputs& in;
    const CachedDecoding& r;
    const DecodingCosts& costs;  // the cost table, the models' caches, the times (--measure)
};

// The words of every kind of label the list names: the tokens, the prompt, the tokens each
// step printed in full has seen, the buffer's slots, and the projections' columns.
void label_everything(Lesson& lesson, const Inputs& in, const CachedDecoding& r) {
    const Labels& tokens = in.seq.tokens;
    const auto first = [&](std::size_t count) { return Labels(tokens.begin(), tokens.begin() + long(count)); };
    Labels slots;
    for (std::size_t j = 0; j < r.win.buffer.length; ++j)
        slots.push_back(fmt::format("{}:{}", j, tokens[r.win.token_in_slot[j]]));
    lesson.labels({{"tokens", tokens}, {"dimensions", in.seq.dimensions}, {"query dims", in.W_Q.columns},
                   {"key dims", in.W_K.columns}, {"value dims", in.W_V.columns}, {"prompt", first(r.dec.prefill)},
                   {"slots", slots}});
    for (const StepInFull& step : r.in_full)
        lesson.labels({{fmt::format("token {}", step.t), {tokens[step.t]}},
                       {fmt::format("tokens to {}", step.t), first(step.t + 1)}});
}

std::string quoted(const std::string& token) { return "\"" + token + "\""; }

// Step sequence: the tokens and what the prompt is.
void show_sequence(Lesson& lesson, const Shown& s) {
    const std::size_t n = s.in.seq.tokens.size(), p = s.r.dec.prefill;
    lesson.say(fmt::format(
        "One causal self-attention layer with the hand-made projections of chapter 05\n"
        "(data/projections/, d_k = d_v = {}). A decoder meets the {} tokens in order: the\n"
        "prompt, {} token{}, arrives at once (the prefill), then the layer runs once per\n"
        "new token, {} decode step{}, as if it had just generated that token.",
        cols(s.r.W.W_K), n, p, p == 1 ? "" : "s", n - p, n - p == 1 ? "" : "s"));
    lesson.show(s.in.seq.X, Style().decimals(1));
}

// Step prefill: the prompt at once.
void show_prefill(Lesson& lesson, const Shown& s) {
    const std::size_t p = s.r.dec.prefill;
    if (p == 0)
        return lesson.say("No prompt (a prefill of 0 tokens): the cache starts empty and every token is a\n"
                          "decode step.");
    lesson.say(fmt::format(
        "The prompt is known in full, so its {} queries, keys and values are computed at once,\n"
        "as in chapter 06: Q, K, V = X[0, {}) · W, causal mask, one softmax. Its keys and\n"
        "values are the first rows of the cache; its queries are used here and dropped.",
        p, p));
    lesson.show(s.r.dec.prompt.weights, Style().svg());
    lesson.show_side_by_side({{s.r.K_prefill, Style()}, {s.r.V_prefill, Style()}});  // the cache after token p − 1
}

// Where a strip's weight goes, ties said as ties (at the three decimals printed):
// "most on "animal" (0.384)", "most on 0 "the" and 4 "the" (0.240 each)",
// "the same weight on every key (0.167)", "most on 450 keys (0.001 each), from 2 "t2"".
std::string where_the_strip_looks(const Matrix& strip, const Labels& tokens) {
    const std::vector<std::size_t> tied = keys_tied_for_most(strip, 3);
    const std::string most = format_number(strip(0, tied[0]), 3);
    const auto key = [&](std::size_t j) { return fmt::format("{} {}", j, quoted(tokens[j])); };
    if (tied.size() == 1) return fmt::format("most on {} ({})", quoted(tokens[tied[0]]), most);
    if (tied.size() == cols(strip)) return fmt::format("the same weight on every key ({})", most);
    if (tied.size() == 2) return fmt::format("most on {} and {} ({} each)", key(tied[0]), key(tied[1]), most);
    return fmt::format("most on {} keys ({} each), from {}", tied.size(), most, key(tied[0]));
}

// Step decode: the first two and last two steps in full, one line for each between.
void show_decode(Lesson& lesson, const Shown& s) {
    const std::vector<StepInFull>& in_full = s.r.in_full;
    const Labels& tokens = s.in.seq.tokens;
    const std::size_t count = s.r.dec.strips.size(), p = s.r.dec.prefill;
    lesson.say("Each step: the new token's q, k, v (one row each); k and v are appended to the\n"
               "cache; q attends over every cached row, with no mask; its strip of weights\n"
               "times V_cache is the token's output. q is not kept.");
    for (std::size_t k = 0; k < in_full.size(); ++k) {  // a step in full: q, k, v, the cache, the strip
        const std::size_t t = in_full[k].t;
        lesson.say(
            fmt::format("── token {} {}: decode step {} of {} ──", t, quoted(tokens[t]), in_full[k].step + 1, count));
        const TokenQKV& qkv = s.r.dec.tokens[in_full[k].step];
        const Strip& strip = s.r.dec.strips[in_full[k].step];
        lesson.show_side_by_side({{qkv.q, Style()}, {qkv.k, Style()}, {qkv.v, Style()}});
        lesson.show_side_by_side({{in_full[k].K_cache, Style()}, {in_full[k].V_cache, Style()}});
        lesson.show(strip.weights);
        lesson.show(strip.output);
        if (k != 1 || count <= 4) continue;
        std::string lines = "── the steps between, one line each ──";  // steps 2 … count − 3, token t = p + 2 + i
        for (const std::size_t i : elided_indices(count - 4, 10, 4))
            lines += i == elided ? "\n  …"
                                 : fmt::format("\n  token {} {}, {} cached rows: its strip puts {}", p + 2 + i,
                                               quoted(tokens[p + 2 + i]), p + 3 + i,
                                               where_the_strip_looks(s.r.dec.strips[2 + i].weights, tokens));
        lesson.say(lines);
    }
}

// Step no-mask: why the queries are not cached and no mask is needed; the strips stacked.
void show_no_mask(Lesson& lesson, const CachedDecoding& r, const std::string& checks) {
    lesson.say(fmt::format(
        "Why the queries are not cached: q_t is needed only by the step of token t. A later\n"
        "token's output is Σ_j softmax(q_later · k_j / √d_k) v_j: it reads every earlier k\n"
        "and v, and no earlier q. So the cache keeps K and V, and each q is dropped.\n"
        "\n"
        "Why no mask: in training, all n queries are computed at once and the future keys\n"
        "are in K, so they must be hidden (chapter 06). In a decode step the cache holds\n"
        "tokens 0 … t only: the future is not hidden, it does not exist yet. Stack the\n"
        "strips under the prefill's rows and the causal lower triangle appears by itself:"));
    lesson.show(r.dec.weights, Style().svg());
    lesson.show(r.dec.output);
    lesson.show(r.full.causal.output);
    lesson.say(fmt::format("The two are the same numbers ({} compares them, and with loops in double).", checks));
}

std::string bytes_cell(double bytes) { return fmt::format("{:>10}", format_bytes(std::uint64_t(bytes))); }

// Step cost: FLOPs and bytes per generated token, with and without the cache.
void show_cost(Lesson& lesson, const Shown& s) {
    const std::vector<TokenCost>& costs = s.costs.tokens;
    lesson.say(
        fmt::format("Without a cache, generating token n − 1 means running the layer over the whole\n"
                    "prefix again: every token's q, k, v, and every query's attention. (One layer\n"
                    "would need only the last query, but in a stack of layers the keys of layer 2 are\n"
                    "made from layer 1's outputs at every position, so every position is recomputed.)\n"
                    "Counted for one head of GPT-2 small (d_model = {}, d_k = d_v = {}), n keys,\n"
                    "a multiply-add as 2 FLOPs, the softmax's n exponentials not counted; bytes read\n"
                    "in float32: the weights, the new x and the n cached rows with the cache; the\n"
                    "weights, all n rows of X, and each query's own keys and values recomputing.",
                    C::d_model, C::d));
    std::vector<TextRow> body;
    for (const TokenCost& c : costs)
        body.push_back({fmt::format("{}", c.n), grouped(std::uint64_t(c.flops_cached), 11),
                        grouped(std::uint64_t(c.flops_recomputed), 15),
                        format_number(c.flops_recomputed / c.flops_cached, 0) + "×", bytes_cell(c.bytes_cached),
                        bytes_cell(c.bytes_recomputed)});
    lesson.table({"n", "FLOPs, cache", "FLOPs, recomputing", "ratio", "read, cache", "read, recomputing"}, body);
    const TokenCost& last = costs.back();
    lesson.say(
        fmt::format("With the cache a token costs its own projections ({} FLOPs, the same at every n)\n"
                    "plus 2·n·(d_k + d_v): linear in n, O(n·d). Recomputing adds n projections and\n"
                    "n(n+1)/2 query–key pairs: O(n²·d). At n = {} the cached step does {} FLOPs per\n"
                    "float it reads, fewer than a processor does while one float arrives from memory:\n"
                    "a decode step waits on memory, and the cache is most of what it reads.",
                    grouped(std::uint64_t(last.flops_projections)), last.n,
                    format_number(last.flops_per_float_cached(), 1)));
}

// Step memory: real models' caches, from data/kv_cache_models.csv.
void show_memory(Lesson& lesson, const Shown& s) {
    lesson.say(
        fmt::format("A model keeps one K and one V per layer and per key–value head, of head_width\n"
                    "numbers per token: bytes per token = 2 · layers · kv_heads · head_width · {}\n"
                    "({}-bit floats). The shapes are in data/kv_cache_models.csv, each with its source\n"
                    "in data/README.md.",
                    C::bytes_per_number, 8 * C::bytes_per_number));
    std::vector<TextRow> body;
    for (std::size_t r = 0; r < s.costs.models.size(); ++r) {
        const ModelCache& c = s.costs.models[r];
        body.push_back({s.in.models.rows[r], fmt::format("{}", c.shape.layers),
                        fmt::format("{}/{}", c.shape.kv_heads, c.shape.heads), fmt::format("{}", c.shape.head_width),
                        bytes_cell(double(c.per_token)), bytes_cell(double(c.at_tokens)),
                        fmt::format("{}", c.shape.context), bytes_cell(double(c.at_context))});
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
    const WindowDecoding& w = s.r.win;
    const Labels& tokens = s.in.seq.tokens;
    const std::size_t n = tokens.size();
    lesson.say(fmt::format(
        "With a sliding window of w = {} (--window), token t sees only keys max(0, t−w+1) … t:\n"
        "a band under the diagonal. A key older than w tokens is never read again, so the\n"
        "cache needs only w rows, a rolling buffer: token t's k and v go to slot t mod w,\n"
        "over the token t − w (Mistral 7B does this with w = 4096).{}",
        w.window, w.window >= n ? "\nHere w ≥ n: the band is the whole lower triangle." : ""));
    lesson.show(s.r.band, Style().decimals(0).svg());
    if (!w.history.empty()) {
        const std::vector<std::size_t> slots = elided_indices(w.window, 8, 3);
        TextRow header{"after token"};
        for (const std::size_t j : slots) header.push_back(j == elided ? "…" : fmt::format("slot {}", j));
        std::vector<TextRow> body;
        for (const std::size_t k : elided_indices(w.history.size(), 10, 4)) {  // the elided row holds "…" only
            TextRow row{k == elided ? "…" : fmt::format("{} {}", s.r.dec.prefill + k, tokens[s.r.dec.prefill + k])};
            for (const std::size_t j : k == elided ? std::vector<std::size_t>{} : slots)
                row.push_back(j == elided ? "…" : w.history[k][j] == empty_slot ? "·" : tokens[w.history[k][j]]);
            body.push_back(row);
        }
        lesson.table(header, body);
    }
    lesson.show_side_by_side({{s.r.window_K, Style()}, {s.r.window_V, Style()}});
    lesson.show(s.r.win.weights, Style().svg());
    if (w.window < n)
        lesson.say_under(
            "Row t's weights sit in columns t−w+1 … t. Where the terminal is too narrow for every\n"
            "column, the middle ones are elided (…), and a row whose band falls there looks all\n"
            "zero: a wider terminal (COLUMNS=200) or --dump shows every column.");
    lesson.say(
        fmt::format("The buffer held at most {} rows for {} tokens. The order of the slots does not\n"
                    "matter: a softmax over keys is the same in any order, and a position encoding\n"
                    "such as RoPE is applied to k before it is cached.",
                    w.most_rows, n));
}

// Step measured (--measure): seconds per generated token on this machine.
void show_measured(Lesson& lesson, const Shown& s) {
    lesson.say(
        fmt::format("One head of GPT-2 small again (d_model = {}, d = {}), random inputs; the time of\n"
                    "generating the token at position n − 1, each the best of a few rounds in a child\n"
                    "process (common/machine/measure_in_child.hpp). These numbers change from run to run.",
                    C::d_model, C::d));
    std::vector<TextRow> body;
    for (const MeasuredToken& m : s.costs.measured)
        body.push_back({fmt::format("{}", m.n), fmt::format("{:>9}", time_text(m.cached_s)),
                        fmt::format("{:>9}", time_text(m.recomputed_s)),
                        format_number(m.recomputed_s / m.cached_s, 0) + "×", format_number(m.flops_ratio, 0) + "×"});
    lesson.table({"n", "with the cache", "recomputing", "time ratio", "FLOPs ratio"}, body);
    lesson.say(
        "Both ratios grow with n. Where the time ratio stays below the FLOPs ratio, it is\n"
        "because the recomputation is a few large matrix products that run at the\n"
        "processor's full speed, while a cached step is small work that waits on memory.");
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson;  // named and titled by chapter.toml
    const std::string& input = lesson.add_input_option("\"" + default_sentence + "\"");
    refuse_text(lesson, "its W_Q, W_K, W_V fit data/embeddings.csv only; chapter 05 takes it");
    Flags flags;
    add_flags(lesson, flags);
    return lesson.run(argc, argv, [&] {
        flags.prefill_given = lesson.given("--prefill");
        const Inputs in = load_inputs(input, flags);
        const Projections W{in.W_Q.values, in.W_K.values, in.W_V.values};
        const CachedDecoding r = cached_decoding(in.seq.X, W, in.prefill, flags.window);
        const auto in_child = [](const std::function<void()>& work) { return measure_in_child(work).seconds; };
        const DecodingCosts costs = decoding_costs(in.models.values, flags.measure ? Measure(in_child) : Measure());
        label_everything(lesson, in, r);
        lesson.list(in.seq.matrices());
        lesson.list(r.matrices());
        const Shown s{in, r, costs};
        lesson.step("sequence", "The sentence, read as a decoder meets it", [&] { show_sequence(lesson, s); });
        lesson.step("prefill", "Prefill: the prompt at once fills the cache", [&] { show_prefill(lesson, s); });
        lesson.step("decode", "Decode: one token at a time, over the cache", [&] { show_decode(lesson, s); });
        lesson.step("no-mask", "Why no query is cached and no mask is needed",
                    [&] { show_no_mask(lesson, r, lesson.ref("checks")); });
        lesson.step("cost", "The cost of a token, with and without the cache", [&] { show_cost(lesson, s); });
        lesson.step("memory", "The cache of real models", [&] { show_memory(lesson, s); });
        lesson.step("window", "A sliding window: a rolling buffer of w rows", [&] { show_window(lesson, s); });
        if (flags.measure) lesson.step("measured", "Measured: time per token", [&] { show_measured(lesson, s); });
        lesson.step("checks", "Self-checks", [&] { check_decoding(lesson.checks(), r, costs); });
        lesson.present();
    });
}
