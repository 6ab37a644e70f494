// Chapter 10 · Long sequences: the quadratic cost, measured
//
// The lesson: what experiment.cpp measured on this machine, step by step (the cost table and
// the crossover against a recurrent layer, n² growth, the online softmax for one query, tiled
// streaming attention, a sliding window and LongNet's dilated segments, all four on one small
// input). Every timing uses one core; the printed times differ from run to run, the claims do not.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/10_long_sequences/checks.hpp"
#include "chapters/10_long_sequences/experiment.hpp"
#include "chapters/10_long_sequences/inputs.hpp"
#include "common/display/time_text.hpp"
#include "common/inputs/sequence.hpp"
#include "common/lesson/lesson.hpp"
#include "common/machine/machine_memory.hpp"

namespace {

std::string pairs_text(const std::vector<DilatedPair>& pairs) {
    std::string s;
    for (const DilatedPair& p : pairs) s += fmt::format("{}(w={}, r={})", s.empty() ? "" : ", ", p.segment, p.dilation);
    return s;
}

// --streaming-only: one length, one kernel, the peak memory of this whole process.
void streaming_only(Lesson& lesson, const Settings& s) {
    const StreamingOnly r = measure_streaming_only(s);
    lesson.step("streaming-only", fmt::format("Streaming attention alone at n = {}, d = {}", s.max_n, s.d), [&] {
        lesson.table({"what", "value"},
                     {{"time", time_text(r.seconds)},
                      {"GFLOP/s (4·n²·d / time)", format_number(float(r.gflops), 1)},
                      {"Q, K, V (the output overwrites Q)", format_bytes(bytes_of_floats({3, s.max_n, s.d}))},
                      {"one tile of scores", format_bytes(bytes_of_floats({r.tile.q, r.tile.k}))},
                      {"peak resident memory of this process (VmHWM)", memory_text(double(r.peak))},
                      {"materialised weights would need", format_bytes(bytes_of_floats({s.max_n, s.max_n}))}});
    });
    lesson.step("checks", "Self-checks", [&] { check_streaming_only(lesson.checks(), r, s); });
    lesson.present();
}

// Step: the paper's table, then the crossover measured.
void show_cost_table(Lesson& lesson, const LongSequences& r, std::size_t d) {
    lesson.table({"layer", "work per layer", "sequential steps", "longest path"},
                 {{"self-attention", "O(n²·d)", "O(1)", "O(1)"},
                  {"recurrent", "O(n·d²)", "O(n)", "O(n)"},
                  {"convolution (kernel k)", "O(k·n·d²)", "O(1)", "O(log_k n)"},
                  {"self-attention, window w", "O(w·n·d)", "O(1)", "O(n/w)"}});
    lesson.say(fmt::format("Attention does n² comparisons of width d; a recurrent layer does n steps of a\n"
                           "d × d product. On paper attention is cheaper while n < d. Measured, width d = {}\n"
                           "(attention: softmax(Q·Kᵀ/√d)·V; recurrent: h_t = tanh(x_t·W_x + h_(t−1)·W_h)):",
                           d));
    std::vector<TextRow> rows_;
    for (const CrossoverRow& c : r.crossover)
        rows_.push_back({fmt::format("{}", c.n), fmt::format("{:g}", double(c.n) / double(d)), time_text(c.attention_s),
                         time_text(c.recurrent_s), format_number(float(c.attention_s / c.recurrent_s), 2)});
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
    lesson.say("scores = Q·Kᵀ/√d and weights = softmax(scores) are stored in full, (n × n) floats,\n"
               "then output = weights · V. Each length is measured in a child process; its peak\n"
               "memory is what the computation added (the inputs are not counted).");
    std::vector<TextRow> growth;
    for (std::size_t k = 0; k < r.full.n.size(); ++k) {
        const auto n = std::size_t(r.full.n[k]);
        growth.push_back({fmt::format("{}", n), time_text(r.full.seconds[k]), format_bytes(bytes_of_floats({n, n})),
                          memory_text(r.full.bytes[k]),
                          k == 0 ? "" : format_number(float(r.full.seconds[k] / r.full.seconds[k - 1]), 1) + "×"});
    }
    if (r.refused_n > 0)
        growth.push_back({std::to_string(r.refused_n), "refused", format_bytes(r.refused_weights_bytes), "—", ""});
    lesson.table({"n", "time", "weights n×n×4 B", "peak memory", "time / previous"}, growth);
    if (r.refused_n > 0)
        lesson.say(fmt::format("n = {} was refused before allocating: it would need {}, more than the {}\n"
                               "this machine can spare. The streaming version below goes on without it.",
                               r.refused_n, format_bytes(r.refused_bytes), format_bytes(s.memory_limit)));
    lesson.say(fmt::format("Fitted on log-log axes (n ≥ 1024, or the two longest): time ∝ {}, peak memory ∝ {}.\n"
                           "Doubling n multiplies both by about 4. At n = 100 000 one head's weights alone\n"
                           "would need {} (this machine can spare {}); a model with 32 heads, 32 times that.",
                           power(r.full.slope(r.full.seconds, 1024)), power(r.full.slope(r.full.bytes, 1024)),
                           format_bytes(bytes_of_floats({100000, 100000})), format_bytes(s.memory_limit)));
}

// Step: the online softmax for one query, key by key.
void show_online_softmax(Lesson& lesson, const LongSequences& r) {
    lesson.say("softmax needs the maximum and the sum of all scores before the first weight is\n"
               "known, so it seems to need the whole row. It does not: keep a running maximum m,\n"
               "a running denominator l = Σ exp(s_j − m) and a running output o = Σ exp(s_j − m)·v_j.\n"
               "When a new score raises the maximum, multiply l and o by exp(m_old − m_new): that\n"
               "re-expresses every earlier term relative to the new maximum. Query 0 of 8 keys, d = 4:");
    std::vector<TextRow> rows_;
    for (const OnlineStep& t : r.trace.steps)
        rows_.push_back({std::to_string(rows_.size()), format_number(t.s, 3), format_number(t.m, 3),
                         format_number(t.rescale, 3), format_number(t.p, 3), format_number(t.l, 3),
                         format_number(t.o0, 3)});
    lesson.table({"key j", "s_j = q·k_j/√d", "m", "exp(m_old−m)", "exp(s_j−m)", "l", "o_0 / l"}, rows_);
    lesson.say(fmt::format("The last row's o_0 / l is the first entry of the attention output: the loop gives\n"
                           "{}, the materialised softmax {}. Only m, l and o were kept: O(d) memory.",
                           format_number(r.trace.output(0), 6), format_number(r.tiny_full(0, 0), 6)));
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
                          have_full ? format_number(float(r.full.seconds[k] / r.stream.seconds[k]), 1) + "×" : "",
                          format_number(float(exact_attention_flops(n, n, s.d) / r.stream.seconds[k] / 1e9), 1),
                          have_full ? memory_text(r.full.bytes[k]) : "—", memory_text(r.stream.bytes[k]),
                          format_bytes(streaming_extra_bytes(n, s.d, s.blocks))});
    }
    lesson.table(
        {"n", "materialised", "streaming", "speed-up", "GFLOP/s", "mem. (mat.)", "mem. (str.)", "output + tile"},
        versus);
    lesson.say(fmt::format("Streaming: time ∝ {} (still every pair of tokens). Its memory is its output\n"
                           "(n·d floats) and one tile, the last column, plus a fixed amount for the allocator\n"
                           "and BLAS's own buffers: it grows with n·d, never with n². The work is the same;\n"
                           "not writing and re-reading the n × n matrix is what makes it faster too.",
                           power(r.stream.slope(r.stream.seconds, 1024))));
}

// Step: the sliding window and LongNet's dilated attention, their cost and their error.
void show_fewer_keys(Lesson& lesson, const LongSequences& r, const Settings& s) {
    lesson.say(fmt::format("Sliding window: query i sees w = {} keys, centred on it and shifted inward at the\n"
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
        const Sweep measured = sweep->memory_in_mib();
        mib.push_back({sweep->name, measured.n, measured.bytes});
    }
    ChartOptions chart;
    chart.width = 56, chart.height = 14, chart.y_text = time_text, chart.x_title = "n (log scale)";
    for (double n = 256; n <= double(s.max_n); n *= 4) chart.ticks.push_back({n, fmt::format("{:g}", n)});
    lesson.chart("cost_time", "Time of one attention layer against n (one head, one core)",
                 {"sequence length n (tokens)", true}, {"time (s)", true}, seconds, chart);
    lesson.plot("cost_memory", "Peak memory one attention layer adds, against n", {"sequence length n (tokens)", true},
                {"peak memory (MiB)", true}, mib);
    lesson.say(fmt::format("The price: their error against full attention at n = {}, relative = ‖approx − full‖ / ‖full‖.\n"
                           "\"random\" tokens attend everywhere; \"local\" tokens resemble their neighbours\n"
                           "(x_i = 0.99·x_(i−1) + noise), so their weight already sits near the diagonal:",
                           r.n_error));
    std::vector<TextRow> errors;
    for (const auto& e : r.errors)
        errors.push_back({e.inputs, format_number(float(e.window_max), 3), format_number(float(e.window_relative), 3),
                          format_number(float(e.dilated_max), 3), format_number(float(e.dilated_relative), 3)});
    lesson.table({"inputs", "window max err", "window relative", "dilated max err", "dilated relative"}, errors);
    lesson.say("On random tokens the missing keys carried most of the weight, and the outputs are\n"
               "far off; on local tokens the window keeps nearly all of it. A sparse pattern is a\n"
               "bet on where the weight is; streaming attention makes no bet.");
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson;  // named and titled by chapter.toml
    Settings flags;
    add_flags(lesson, flags);
    refuse_text(lesson, "the cost is measured on random sequences of 256 to --max-n tokens, not on one sentence");
    return lesson.run(argc, argv, [&] {
        const Settings s = checked_settings(flags);
        set_blas_threads(1);
        if (s.streaming_only) return streaming_only(lesson, s);
        const LongSequences r = measure_long_sequences(s, measure_in_a_child);
        lesson.labels({{"tokens", numbered("t", rows(r.small.Q))}, {"dimensions", numbered("d", s.d)}});
        lesson.list(r.matrices());
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
                    [&] {
                        for (const Matrix* m : {&r.output_full, &r.output_streaming, &r.output_window,
                                                &r.output_dilated})
                            lesson.show(*m);
                    });
        lesson.step("checks", "Self-checks",
                    [&] { check_long_sequences(lesson.checks(), r, s, lesson.ref("online-softmax")); });
        lesson.present();
    });
}
