// Chapter 10 · Long sequences: the quadratic cost, measured
//
// The lesson: what math.cpp measured on this machine, step by step (the cost
// table and the crossover against a recurrent layer, n² growth, the online
// softmax for one query, tiled streaming attention, a sliding window and
// LongNet's dilated segments, all four on one small input), then checked
// against the definitions by loops in double. Every timing uses one core (one
// OpenBLAS thread); the printed times differ from run to run, the claims do not.
#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <xtensor/xview.hpp>

#include "chapters/10_long_sequences/experiment.hpp"
#include "common/lesson/lesson.hpp"
#include "common/lesson/machine_memory.hpp"
#include "common/lesson/measure_in_child.hpp"
#include "common/lesson/text_table.hpp"
#include "common/math/input_error.hpp"
#include "common/reference/attention_by_loops.hpp"

namespace {

std::string time_text(double s) {
    if (s < 1e-3) return fmt::format("{:.1f} µs", s * 1e6);
    if (s < 1.0) return fmt::format("{:.2f} ms", s * 1e3);
    return fmt::format("{:.2f} s", s);
}
std::string memory_text(double bytes) { return bytes <= 0 ? "—" : format_bytes(std::uint64_t(bytes)); }
std::string power(double exponent) { return std::isnan(exponent) ? "n^?" : fmt::format("n^{:.2f}", exponent); }

// "256" → 256; 0 for anything but plain digits (std::stoul would read "-1" as 2^64 − 1).
std::size_t positive_integer(const std::string& text) {
    if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) return 0;
    return std::stoul(text);
}

// "256:1,1024:4" → {(256, 1), (1024, 4)}
std::vector<DilatedPair> parse_pairs(const std::string& text) {
    std::vector<DilatedPair> pairs;
    std::stringstream all(text);
    std::string item;
    while (std::getline(all, item, ',')) {
        const auto colon = item.find(':');
        const std::size_t w = colon == std::string::npos ? 0 : positive_integer(item.substr(0, colon));
        const std::size_t r = colon == std::string::npos ? 0 : positive_integer(item.substr(colon + 1));
        if (w == 0 || r == 0)
            throw InputError(fmt::format("--pairs {}: expected segment:dilation pairs of positive integers "
                                         "separated by commas, like 256:1,1024:4 (\"{}\" is not one)",
                                         text, item));
        pairs.push_back({w, r});
    }
    if (pairs.empty()) throw InputError(fmt::format("--pairs {}: give at least one pair, like 256:1", text));
    if (std::none_of(pairs.begin(), pairs.end(), [](const DilatedPair& p) { return p.dilation == 1; }))
        throw InputError(fmt::format("--pairs {}: one pair needs dilation 1, or some tokens attend to nothing", text));
    return pairs;
}

std::string pairs_text(const std::vector<DilatedPair>& pairs) {
    std::string s;
    for (const DilatedPair& p : pairs) s += fmt::format("{}(w={}, r={})", s.empty() ? "" : ", ", p.segment, p.dilation);
    return s;
}

// --streaming-only: one length, one kernel, the peak memory of this whole process.
void streaming_only(Lesson& lesson, const Settings& s) {
    Inputs in = random_inputs(s.max_n, s.d, 1);
    const std::size_t kept = std::min<std::size_t>(4, s.max_n);  // a few queries, to check the result
    const Matrix first_queries = xt::view(in.Q, xt::range(0, kept), xt::all());
    const double start = cpu_seconds();
    streaming_attention_in_place(in.Q, in.K, in.V, s.blocks);  // the output overwrites Q
    const double seconds = cpu_seconds() - start;
    const std::uint64_t peak = peak_resident_bytes();
    const Matrix got = xt::view(in.Q, xt::range(0, kept), xt::all());
    const Matrix expected = attention_by_loops(first_queries, in.K, in.V).output;  // the reference, in double
    const AttentionBlocks tile = clamped_blocks(s.blocks, s.max_n, s.max_n);
    lesson.step("streaming-only", fmt::format("Streaming attention alone at n = {}, d = {}", s.max_n, s.d), [&] {
        lesson.table({"what", "value"},
                     {{"time", time_text(seconds)},
                      {"GFLOP/s (4·n²·d / time)",
                       fmt::format("{:.1f}", exact_attention_flops(s.max_n, s.max_n, s.d) / seconds / 1e9)},
                      {"Q, K, V (the output overwrites Q)", format_bytes(bytes_of_floats({3, s.max_n, s.d}))},
                      {"one tile of scores", format_bytes(bytes_of_floats({tile.q, tile.k}))},
                      {"peak resident memory of this process (VmHWM)", memory_text(double(peak))},
                      {"materialised weights would need", format_bytes(bytes_of_floats({s.max_n, s.max_n}))}});
    });
    lesson.step("checks", "Self-checks", [&] {
        lesson.checks().close(fmt::format("the first {} outputs equal softmax(q·k/√d)·V over all {} keys, by loops in "
                                          "double",
                                          kept, s.max_n),
                              max_abs_difference(got, expected), 1e-5);
    });
    lesson.present();
}

// Step: the paper's table, then the crossover measured.
void show_cost_table(Lesson& lesson, const LongSequences& r, std::size_t d) {
    lesson.table({"layer", "work per layer", "sequential steps", "longest path"},
                 {{"self-attention", "O(n²·d)", "O(1)", "O(1)"},
                  {"recurrent", "O(n·d²)", "O(n)", "O(n)"},
                  {"convolution (kernel k)", "O(k·n·d²)", "O(1)", "O(log_k n)"},
                  {"self-attention, window w", "O(w·n·d)", "O(1)", "O(n/w)"}});
    lesson.say(
        fmt::format("Attention does n² comparisons of width d; a recurrent layer does n steps of a\n"
                    "d × d product. On paper attention is cheaper while n < d. Measured, width d = {}\n"
                    "(attention: softmax(Q·Kᵀ/√d)·V; recurrent: h_t = tanh(x_t·W_x + h_(t−1)·W_h)):",
                    d));
    std::vector<TextRow> rows_;
    for (const CrossoverRow& c : r.crossover)
        rows_.push_back({fmt::format("{}", c.n), fmt::format("{:g}", double(c.n) / double(d)), time_text(c.attention_s),
                         time_text(c.recurrent_s), fmt::format("{:.2f}", c.attention_s / c.recurrent_s)});
    lesson.table({"n", "FLOPs ratio n/d", "attention", "recurrent", "time ratio"}, rows_);
    lesson.say(r.first_loss > 0
                   ? fmt::format("\nHere attention is the faster layer below n = {} = {:g}·d, and the slower from\n"
                                 "there on. The FLOPs put the crossing at n = d; it comes later because the\n"
                                 "recurrent layer's n steps wait for each other and cannot use the\n"
                                 "matrix-multiply units as fully as attention's two products do.",
                                 r.first_loss, double(r.first_loss) / double(d))
                   : "\nAttention stayed the faster layer at every length measured here: its matrix\n"
                     "products run at full speed while the recurrent steps wait for each other.\n"
                     "Try a longer --max-n.");
}

// Step: materialised attention's time and memory at each length.
void show_quadratic(Lesson& lesson, const LongSequences& r, const Settings& s) {
    lesson.say(
        "scores = Q·Kᵀ/√d and weights = softmax(scores) are stored in full, (n × n) floats,\n"
        "then output = weights · V. Each length is measured in a child process; its peak\n"
        "memory is what the computation added (the inputs are not counted).");
    std::vector<TextRow> growth;
    for (std::size_t k = 0; k < r.full.n.size(); ++k) {
        const auto n = std::size_t(r.full.n[k]);
        growth.push_back({fmt::format("{}", n), time_text(r.full.seconds[k]), format_bytes(bytes_of_floats({n, n})),
                          memory_text(r.full.bytes[k]),
                          k == 0 ? "" : fmt::format("{:.1f}×", r.full.seconds[k] / r.full.seconds[k - 1])});
    }
    if (r.refused_n > 0)
        growth.push_back({fmt::format("{}", r.refused_n), "refused", format_bytes(bytes_of_floats({r.refused_n, r.refused_n})),
                          "—", ""});
    lesson.table({"n", "time", "weights n×n×4 B", "peak memory", "time / previous"}, growth);
    if (r.refused_n > 0)
        lesson.say(
            fmt::format("n = {} was refused before allocating: it would need {}, more than the {}\n"
                        "this machine can spare. The streaming version below goes on without it.",
                        r.refused_n, format_bytes(r.refused_bytes), format_bytes(s.memory_limit)));
    lesson.say(
        fmt::format("Fitted on log-log axes (n ≥ 1024, or the two longest): time ∝ {}, peak memory ∝ {}.\n"
                    "Doubling n multiplies both by about 4. At n = 100 000 one head's weights alone\n"
                    "would need {} (this machine can spare {}); a model with 32 heads, 32 times that.",
                    power(r.full.slope(r.full.seconds, 1024)), power(r.full.slope(r.full.bytes, 1024)),
                    format_bytes(bytes_of_floats({100000, 100000})), format_bytes(s.memory_limit)));
}

// Step: the online softmax for one query, key by key.
void show_online_softmax(Lesson& lesson, const LongSequences& r) {
    lesson.say(
        "softmax needs the maximum and the sum of all scores before the first weight is\n"
        "known, so it seems to need the whole row. It does not: keep a running maximum m,\n"
        "a running denominator l = Σ exp(s_j − m) and a running output o = Σ exp(s_j − m)·v_j.\n"
        "When a new score raises the maximum, multiply l and o by exp(m_old − m_new): that\n"
        "re-expresses every earlier term relative to the new maximum. Query 0 of 8 keys, d = 4:");
    std::vector<TextRow> rows_;
    for (std::size_t j = 0; j < r.trace.steps.size(); ++j) {
        const OnlineStep& t = r.trace.steps[j];
        rows_.push_back({fmt::format("{}", j), fmt::format("{:.3f}", t.s), fmt::format("{:.3f}", t.m),
                         fmt::format("{:.3f}", t.rescale), fmt::format("{:.3f}", t.p), fmt::format("{:.3f}", t.l),
                         fmt::format("{:.3f}", t.o0)});
    }
    lesson.table({"key j", "s_j = q·k_j/√d", "m", "exp(m_old−m)", "exp(s_j−m)", "l", "o_0 / l"}, rows_);
    lesson.say(
        fmt::format("The last row's o_0 / l is the first entry of the attention output: the loop gives\n"
                    "{:.6f}, the materialised softmax {:.6f}. Only m, l and o were kept: O(d) memory.",
                    r.trace.output(0), r.tiny_full(0, 0)));
}

// Step: tiled streaming attention against materialised, time and memory.
void show_streaming(Lesson& lesson, const LongSequences& r, const Settings& s) {
    const AttentionBlocks tile = clamped_blocks(s.blocks, s.max_n, s.max_n);  // a block is at most the sequence
    lesson.say(fmt::format(
        "The same recurrence for a block of {} queries against a block of {} keys at a time\n"
        "(FlashAttention-2's order: the outer loop over query blocks, the inner over key\n"
        "blocks). Each tile is two BLAS products, S = Q_blk·K_blkᵀ/√d and O_blk += P·V_blk,\n"
        "with the exp and the rescaling in between; only one ({} × {}) tile of scores exists.",
        tile.q, tile.k, tile.q, tile.k));
    lesson.say(fmt::format("At n = {}: max |streaming − materialised| = {:.1e} (causal: {:.1e}).", r.n_check,
                           r.tiled_error, r.causal_error));
    std::vector<TextRow> versus;
    for (std::size_t k = 0; k < r.stream.n.size(); ++k) {
        const auto n = std::size_t(r.stream.n[k]);
        const bool have_full = k < r.full.n.size();
        versus.push_back({fmt::format("{}", n), have_full ? time_text(r.full.seconds[k]) : "—",
                          time_text(r.stream.seconds[k]),
                          have_full ? fmt::format("{:.1f}×", r.full.seconds[k] / r.stream.seconds[k]) : "",
                          fmt::format("{:.1f}", exact_attention_flops(n, n, s.d) / r.stream.seconds[k] / 1e9),
                          have_full ? memory_text(r.full.bytes[k]) : "—", memory_text(r.stream.bytes[k]),
                          format_bytes(streaming_extra_bytes(n, s.d, s.blocks))});
    }
    lesson.table(
        {"n", "materialised", "streaming", "speed-up", "GFLOP/s", "mem. (mat.)", "mem. (str.)", "output + tile"},
        versus);
    lesson.say(
        fmt::format("Streaming: time ∝ {} (still every pair of tokens). Its memory is its output\n"
                    "(n·d floats) and one tile, the last column, plus a fixed amount for the allocator\n"
                    "and BLAS's own buffers: it grows with n·d, never with n². The work is the same;\n"
                    "not writing and re-reading the n × n matrix is what makes it faster too.",
                    power(r.stream.slope(r.stream.seconds, 1024))));
}

// Step: the sliding window and LongNet's dilated attention, their cost and their error.
void show_fewer_keys(Lesson& lesson, const LongSequences& r, const Settings& s) {
    lesson.say(
        fmt::format("Sliding window: query i sees w = {} keys, centred on it and shifted inward at the\n"
                    "ends, so that every query sees exactly w. (Longformer's window differs: w/2 keys on\n"
                    "each side, fewer at the ends, and a few global tokens that see everything.)\n"
                    "Dilated (LongNet): pairs {}:\n"
                    "segments of w tokens, every r-th token, the pairs' outputs mixed by their softmax\n"
                    "denominators. Both cost O(n) for fixed w.",
                    s.window, pairs_text(s.pairs)));
    std::vector<TextRow> sparse;
    for (std::size_t k = 0; k < r.window.n.size(); ++k)
        sparse.push_back({fmt::format("{}", std::size_t(r.window.n[k])),
                          k < r.stream.n.size() ? time_text(r.stream.seconds[k]) : "—",
                          time_text(r.window.seconds[k]), time_text(r.dilated.seconds[k])});
    lesson.table({"n", "streaming (exact)", "window", "dilated"}, sparse);
    lesson.say(fmt::format(
        "Fitted (n ≥ 4096): window ∝ {}, dilated ∝ {}. Time against n:", power(r.window.slope(r.window.seconds, 4096)),
        power(r.dilated.slope(r.dilated.seconds, 4096))));
    const std::vector<std::pair<const Sweep*, const char*>> marked = {
        {&r.full, "M"}, {&r.stream, "S"}, {&r.window, "W"}, {&r.dilated, "D"}};
    // The time as a chart here and (--svg) a picture; log–log, so n² and n are straight lines.
    std::vector<Series> seconds, mib;
    for (const auto& [sweep, mark] : marked) {
        seconds.push_back({sweep->name, sweep->n, sweep->seconds, mark});
        Series m{sweep->name, {}, {}};
        for (std::size_t i = 0; i < sweep->n.size(); ++i)
            if (sweep->bytes[i] > 0) m.x.push_back(sweep->n[i]), m.y.push_back(sweep->bytes[i] / (1024.0 * 1024.0));
        mib.push_back(m);
    }
    ChartOptions chart;
    chart.width = 56, chart.height = 14, chart.y_text = time_text;
    for (double n = 256; n <= double(s.max_n); n *= 4) chart.ticks.push_back({n, fmt::format("{:g}", n)});
    chart.x_title = "n (log scale)";
    lesson.chart("cost_time", "Time of one attention layer against n (one head, one core)",
                 {"sequence length n (tokens)", true}, {"time (s)", true}, seconds, chart);
    lesson.plot("cost_memory", "Peak memory one attention layer adds, against n", {"sequence length n (tokens)", true},
                {"peak memory (MiB)", true}, mib);
    lesson.say(
        fmt::format("The price: their error against full attention at n = {}, relative = ‖approx − full‖ / ‖full‖.\n"
                    "\"random\" tokens attend everywhere; \"local\" tokens resemble their neighbours\n"
                    "(x_i = 0.99·x_(i−1) + noise), so their weight already sits near the diagonal:",
                    r.n_error));
    std::vector<TextRow> errors;
    for (const auto& e : r.errors)
        errors.push_back({e.inputs, fmt::format("{:.3f}", e.window_max), fmt::format("{:.3f}", e.window_relative),
                          fmt::format("{:.3f}", e.dilated_max), fmt::format("{:.3f}", e.dilated_relative)});
    lesson.table({"inputs", "window max err", "window relative", "dilated max err", "dilated relative"}, errors);
    lesson.say(
        "On random tokens the missing keys carried most of the weight, and the outputs are\n"
        "far off; on local tokens the window keeps nearly all of it. A sparse pattern is a\n"
        "bet on where the weight is; streaming attention makes no bet.");
}

// Step: all four outputs of the small input.
void show_small(Lesson& lesson, const LongSequences& r, std::size_t d) {
    const Labels tokens = numbered("t", rows(r.small.Q)), dims = numbered("d", d);
    lesson.keep_for_dump("Q", r.small.Q);
    lesson.keep_for_dump("K", r.small.K);
    lesson.keep_for_dump("V", r.small.V);
    lesson.show("output_full", r.output_full, ShowAs("softmax(Q·Kᵀ/√d)·V").labels(tokens, dims));
    lesson.show("output_streaming", r.output_streaming, ShowAs("tiled online softmax").labels(tokens, dims));
    lesson.show("output_window", r.output_window,
                ShowAs(fmt::format("each query: a window of {} keys", r.small_window)).labels(tokens, dims));
    lesson.show("output_dilated", r.output_dilated, ShowAs("LongNet pairs mixed").labels(tokens, dims));
}

// Each claim against something computed another way: loops in double, the measurements' own sizes.
void check(SelfChecks& check, const LongSequences& r, const Settings& s, const std::string& online_step) {
    double one_query_error = 0.0;
    for (std::size_t c = 0; c < cols(r.tiny.V); ++c) {  // a NaN is an error, not a value std::max skips
        const double e = std::fabs(double(r.trace.output(c)) - double(r.tiny_full(0, c)));
        one_query_error = std::isnan(e) ? HUGE_VAL : std::max(one_query_error, e);
    }
    check.close(fmt::format("the one-query loop of {} equals the materialised softmax", online_step), one_query_error,
                1e-5);
    const Inputs& x = r.small;
    const Matrix by_loops = attention_by_loops(x.Q, x.K, x.V).output;  // the reference, in double
    check.close("materialised = softmax(q·k/√d)·v by loops in double",
                max_abs_difference(r.output_full, by_loops), 1e-5);
    check.close("streaming = the same loops", max_abs_difference(r.output_streaming, by_loops), 1e-5);
    check.close(fmt::format("tiled streaming equals materialised attention (n = {})", r.n_check), r.tiled_error, 1e-4);
    check.close("... and with a causal mask", r.causal_error, 1e-4);
    check.close(fmt::format("window = loops over exactly {} keys [b, b + {})", r.small_window, r.small_window),
                max_abs_difference(r.output_window, window_by_loops(x.Q, x.K, x.V, r.small_window)), 1e-5);
    check.close("dilated = one softmax over its pairs' keys, by loops",
                max_abs_difference(r.output_dilated, dilated_by_loops(x.Q, x.K, x.V, r.small_pairs)), 1e-5);
    check.close("a window of n keys is full attention",
                max_abs_difference(sliding_window_attention(x.Q, x.K, x.V, rows(x.Q), s.blocks), by_loops), 1e-5);
    check.close("dilated with one pair (w = n, r = 1) is full attention",
                max_abs_difference(dilated_attention(x.Q, x.K, x.V, {{rows(x.Q), 1}}, s.blocks), by_loops), 1e-5);
    check.that("a length of 10 000 000 is refused before allocating (its weights: " +
                   format_bytes(bytes_of_floats({10000000, 10000000})) + ")",
               !fits_in_memory(materialised_extra_bytes(10000000, 10000000, s.d), s.memory_limit));
    // The crossover, where the sweep is long enough for the times to be more than noise.
    const std::string crossing = "attention is faster than the recurrent layer at n = d/4 and slower at n = 32·d";
    if (s.d < 32 || r.crossover.empty() || r.crossover.back().n < 32 * s.d)
        check.skip(crossing, "the sweep stopped before 32·d, or d < 32 makes both layers too quick to time");
    else
        check.that(crossing, r.crossover.front().attention_s < r.crossover.front().recurrent_s &&
                                 r.crossover.back().attention_s > r.crossover.back().recurrent_s);
    const Sweep& full = r.full;
    if (!full.n.empty() && full.n.back() >= 4096 && std::all_of(full.bytes.begin(), full.bytes.end(), [](double b) { return b > 0; }))
        check.that(fmt::format("materialised memory grows about as n² (fitted {})", power(full.slope(full.bytes, 1024))),
                   full.slope(full.bytes, 1024) > 1.6 && full.slope(full.bytes, 1024) < 2.4);
    else
        check.skip("materialised memory grows about as n²", "the sweep stopped before n = 4096, or memory was not measured");
    const std::string no_square = "streaming holds no n × n matrix: its peak < n²·4 B";
    const std::size_t n = r.stream.n.empty() ? 0 : std::size_t(r.stream.n.back());
    if (n < 2048 || n < 4 * s.d || r.stream.bytes.back() <= 0)
        check.skip(no_square, "below n = 2048 or 4·d, n² is too small to stand apart from the output n·d and "
                              "the allocator's own memory (or memory was not measured)");
    else
        check.that(fmt::format("{} ({} < {} at n = {})", no_square, memory_text(r.stream.bytes.back()),
                               format_bytes(bytes_of_floats({n, n})), n),
                   r.stream.bytes.back() < double(bytes_of_floats({n, n})));
}

// The chapter's flags: most go straight into the Settings of math.cpp.
struct Flags {
    Settings settings;
    std::string pairs = "256:1,1024:4,4096:16";
    bool only_streaming = false;
};

void add_flags(CLI::App& cli, Flags& f) {
    Settings& s = f.settings;
    cli.add_option("--max-n", s.max_n, "the longest sequence measured (the time budget may stop earlier)")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{256}, std::size_t{1} << 30));
    cli.add_option("--d", s.d, "width of queries, keys and values (one head)")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{1}, std::size_t{4096}));
    cli.add_option("--block-q", s.blocks.q, "queries per tile of streaming attention")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{1}, std::size_t{65536}));
    cli.add_option("--block-k", s.blocks.k, "keys per tile of streaming attention")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{1}, std::size_t{65536}));
    cli.add_option("--window", s.window, "keys each query sees in sliding-window attention")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30));
    cli.add_option("--pairs", f.pairs, "LongNet's (segment w : dilation r) pairs, comma-separated")
        ->capture_default_str();
    cli.add_option("--budget-s", s.budget_s, "seconds the length sweeps may take (about; the whole run takes more)")
        ->capture_default_str()
        ->check(CLI::Range(0.1, 3600.0));
    cli.add_flag("--streaming-only", f.only_streaming,
                 "measure streaming attention alone at --max-n (its time and peak memory), nothing else");
}

// The settings of the flags, with the pairs parsed and this machine's memory limit, once
// the guard has checked that even the streaming version fits at --max-n (Q, K, V and its output).
Settings checked_settings(const Flags& f) {
    Settings s = f.settings;
    s.pairs = parse_pairs(f.pairs);
    s.memory_limit = memory_limit_bytes();
    const AttentionBlocks tile = clamped_blocks(s.blocks, s.max_n, s.max_n);
    require_memory(fmt::format("--max-n {}: streaming attention at n = {}, d = {}, in tiles of {} × {} (--block-q, "
                               "--block-k)",
                               s.max_n, s.max_n, s.d, tile.q, tile.k),
                   add_bytes(bytes_of_floats({3, s.max_n, s.d}), streaming_extra_bytes(s.max_n, s.d, s.blocks)),
                   s.memory_limit);
    return s;
}

// One measurement of math.cpp, in a child process: its time and peak memory.
Cost measure_in_a_child(const std::function<void()>& work) {
    const Measured m = measure_in_child(work);
    return Cost{m.seconds, double(m.peak_bytes)};
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch10_long_sequences", "Chapter 10 · Long sequences: the quadratic cost, measured");
    Flags flags;
    add_flags(lesson.cli(), flags);

    return lesson.run(argc, argv, [&] {
        const Settings s = checked_settings(flags);
        set_blas_threads(1);
        if (flags.only_streaming) return streaming_only(lesson, s);
        const LongSequences r = measure_long_sequences(s, measure_in_a_child);
        lesson.step("cost-table", "What a layer costs (Vaswani et al. 2017, Table 1), and where attention loses",
                    [&] { show_cost_table(lesson, r, s.d); });
        lesson.step("quadratic", "Materialised attention: time and memory grow as n²", [&] { show_quadratic(lesson, r, s); });
        lesson.step("online-softmax", "The online softmax: one query, one pass over the keys",
                    [&] { show_online_softmax(lesson, r); });
        lesson.step("streaming", "Streaming attention, tiled: exact, in linear memory", [&] { show_streaming(lesson, r, s); });
        lesson.step("fewer-keys", "Fewer keys: a sliding window and LongNet's dilated attention",
                    [&] { show_fewer_keys(lesson, r, s); });
        lesson.step("small-input",
                    fmt::format("All four on one small input (n = 32, window {}, pairs {})", r.small_window,
                                pairs_text(r.small_pairs)),
                    [&] { show_small(lesson, r, s.d); });
        lesson.step("checks", "Self-checks", [&] { check(lesson.checks(), r, s, lesson.ref("online-softmax")); });
        lesson.present();
    });
}
