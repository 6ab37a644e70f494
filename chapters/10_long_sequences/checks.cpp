#include "chapters/10_long_sequences/checks.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <xtensor/xview.hpp>

#include "common/machine/machine_memory.hpp"
#include "common/numbers/memory_budget.hpp"
#include "common/reference/attention_by_loops.hpp"

namespace {

// The one-query loop, the kernels on the small input, and the sparse patterns' keys.
void check_kernels(SelfChecks& check, const LongSequences& r, const Settings& s, const std::string& online_step) {
    double one_query_error = 0.0;
    for (std::size_t c = 0; c < cols(r.tiny.V); ++c) {  // a NaN is an error, not a value std::max skips
        const double e = std::fabs(double(r.trace.output(c)) - double(r.tiny_full(0, c)));
        one_query_error = std::isnan(e) ? HUGE_VAL : std::max(one_query_error, e);
    }
    check.close(fmt::format("the one-query loop of {} equals the materialised softmax", online_step), one_query_error,
                1e-5);
    const Inputs& x = r.small;
    const std::size_t n = rows(x.Q), w = r.small_window;
    const Matrix by_loops = attention_by_loops(x.Q, x.K, x.V).output;  // the reference, in double
    check.close("materialised = softmax(q·k/√d)·v by loops in double",
                max_abs_difference(r.output_full, by_loops), 1e-5);
    check.close("streaming = the same loops", max_abs_difference(r.output_streaming, by_loops), 1e-5);
    check.close(fmt::format("tiled streaming equals materialised attention (n = {})", r.n_check), r.tiled_error, 1e-4);
    check.close("... and with a causal mask", r.causal_error, 1e-4);
    const KeysSeen window = KeysSeen::centred_window(w, n);
    check.close(fmt::format("window = loops over exactly {} keys [b, b + {})", w, w),
                max_abs_difference(r.output_window, attention_by_loops(x.Q, x.K, x.V, window).output), 1e-5);
    // window_keys (math.cpp) is the lesson's own statement of the window: the same keys.
    std::size_t wrong_keys = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::vector<std::size_t> keys = window_keys(i, n, w);
        for (std::size_t j = 0; j < n; ++j)
            if (window.sees(i, j) != (std::count(keys.begin(), keys.end(), j) == 1)) ++wrong_keys;
    }
    check.that(fmt::format("window_keys (math.cpp) gives every query the window's {} keys{}", w,
                           wrong_keys == 0 ? "" : fmt::format(" ({} query–key pairs wrong)", wrong_keys)),
               wrong_keys == 0);
    const KeysSeen dilated = KeysSeen::dilated(r.small_pairs, n);
    check.close("dilated = one softmax over its pairs' keys, by loops",
                max_abs_difference(r.output_dilated, attention_by_loops(x.Q, x.K, x.V, dilated).output), 1e-5);
    check.close("a window of n keys is full attention",
                max_abs_difference(sliding_window_attention(x.Q, x.K, x.V, n, s.blocks), by_loops), 1e-5);
    check.close("dilated with one pair (w = n, r = 1) is full attention",
                max_abs_difference(dilated_attention(x.Q, x.K, x.V, {{n, 1}}, s.blocks), by_loops), 1e-5);
}

}  // namespace

void check_long_sequences(SelfChecks& check, const LongSequences& r, const Settings& s,
                          const std::string& online_step) {
    check_kernels(check, r, s, online_step);
    check.that("a length of 10 000 000 is refused before allocating (its weights: " +
                   format_bytes(bytes_of_floats({10000000, 10000000})) + ")",
               !fits_in_memory(materialised_extra_bytes(10000000, 10000000, s.d), s.memory_limit));
    // The crossover, where the sweep is long enough for the times to be more than noise.
    const std::string crossing = "attention is faster than the recurrent layer at n = d/4 and slower at n = 32·d";
#ifdef TUTORIAL_SANITIZE
    check.skip(crossing, "this build runs under the sanitizers, whose checks slow the recurrent layer's "
                         "thousands of small steps far more than attention's few large products");
#else
    if (s.d < 32 || r.crossover.empty() || r.crossover.back().n < 32 * s.d)
        check.skip(crossing, "the sweep stopped before 32·d, or d < 32 makes both layers too quick to time");
    else
        check.that(crossing, r.crossover.front().attention_s < r.crossover.front().recurrent_s &&
                                 r.crossover.back().attention_s > r.crossover.back().recurrent_s);
#endif
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

void check_streaming_only(SelfChecks& check, const StreamingOnly& r, const Settings& s) {
    const std::size_t kept = rows(r.first_queries);
    const Matrix got = xt::view(r.in.Q, xt::range(0, kept), xt::all());  // the output overwrote Q
    const Matrix expected = attention_by_loops(r.first_queries, r.in.K, r.in.V).output;  // the reference, in double
    check.close(fmt::format("the first {} outputs equal softmax(q·k/√d)·V over all {} keys, by loops in double", kept,
                            s.max_n),
                max_abs_difference(got, expected), 1e-5);
}
