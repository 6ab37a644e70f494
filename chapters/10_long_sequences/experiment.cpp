#include "chapters/10_long_sequences/experiment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include <fmt/format.h>
#include <xtensor/xview.hpp>

#include "common/display/print.hpp"
#include "common/lesson/self_check.hpp"
#include "common/machine/machine_memory.hpp"
#include "common/machine/measure_in_child.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/memory_budget.hpp"
#include "common/numbers/random.hpp"

namespace {

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

}  // namespace

std::string memory_text(double bytes) { return bytes <= 0 ? "—" : format_bytes(std::uint64_t(bytes)); }
std::string power(double exponent) { return std::isnan(exponent) ? "n^?" : "n^" + format_number(float(exponent), 2); }

double Sweep::slope(const std::vector<double>& y, double from) const {
    std::vector<double> xs, ys;
    for (std::size_t i = 0; i < n.size(); ++i)
        if (n[i] >= from && y[i] > 0) xs.push_back(n[i]), ys.push_back(y[i]);
    if (xs.size() < 2 && n.size() >= 2) {  // a short sweep: the two longest lengths
        xs = {n[n.size() - 2], n.back()};
        ys = {y[n.size() - 2], y.back()};
    }
    return loglog_slope(xs, ys);
}

Sweep Sweep::memory_in_mib() const {
    Sweep measured{name, {}, {}, {}};
    for (std::size_t i = 0; i < n.size(); ++i)
        if (bytes[i] > 0) measured.n.push_back(n[i]), measured.bytes.push_back(bytes[i] / (1024.0 * 1024.0));
    return measured;
}

namespace {

void add_point(Sweep& s, std::size_t n, const Cost& c) {
    s.n.push_back(double(n)), s.seconds.push_back(c.seconds), s.bytes.push_back(c.bytes);
}

// Materialised attention at n = 256, 512, … until the budget or the memory runs out.
void sweep_materialised(LongSequences& r, const Settings& s, const Measure& measure) {
    double spent = 0.0;
    for (std::size_t n = 256; n <= s.max_n; n *= 2) {
        const std::uint64_t need = add_bytes(materialised_extra_bytes(n, n, s.d), bytes_of_floats({3, n, s.d}));
        if (!fits_in_memory(need, s.memory_limit)) {  // refused before allocating
            r.refused_n = n, r.refused_bytes = need, r.refused_weights_bytes = bytes_of_floats({n, n});
            return;
        }
        const Inputs in = random_inputs(n, s.d, 1);
        const Cost c = measure([&] { materialised_attention(in.Q, in.K, in.V); });
        spent += c.seconds;
        add_point(r.full, n, c);
        // A next length that would not fit is shown as refused, whatever the budget.
        const bool next_fits = 2 * n > s.max_n || fits_in_memory(add_bytes(materialised_extra_bytes(2 * n, 2 * n, s.d),
                                                                           bytes_of_floats({3, 2 * n, s.d})),
                                                                 s.memory_limit);
        if (next_fits && spent + 4.5 * c.seconds > 0.35 * s.budget_s) return;  // the next takes about 4× as long
    }
}

void sweep_streaming_and_sparse(LongSequences& r, const Settings& s, const Measure& measure) {
    double spent = 0.0;
    for (std::size_t n = 256; n <= s.max_n; n *= 2) {
        const Inputs in = random_inputs(n, s.d, 1);
        const Cost c = measure([&] { streaming_attention(in.Q, in.K, in.V, s.blocks); });
        add_point(r.stream, n, c);
        if ((spent += c.seconds) + 4.5 * c.seconds > 0.35 * s.budget_s) break;
    }
    spent = 0.0;
    for (std::size_t n = 256; n <= s.max_n; n *= 2) {
        const Inputs in = random_inputs(n, s.d, 1);
        const Cost w = measure([&] { sliding_window_attention(in.Q, in.K, in.V, s.window, s.blocks); });
        const Cost g = measure([&] { dilated_attention(in.Q, in.K, in.V, s.pairs, s.blocks); });
        add_point(r.window, n, w), add_point(r.dilated, n, g);
        if ((spent += w.seconds + g.seconds) + 2.5 * (w.seconds + g.seconds) > 0.2 * s.budget_s)
            break;  // linear: about 2× per doubling
    }
}

}  // namespace

LongSequences measure_long_sequences(const Settings& s, const Measure& measure) {
    LongSequences r;
    r.full.name = "materialised", r.stream.name = "streaming", r.window.name = "window", r.dilated.name = "dilated";
    // 1. the crossover against a recurrent layer of the same width
    for (std::size_t n = std::max<std::size_t>(s.d / 4, 4); n <= 32 * s.d && n <= s.max_n; n *= 2) {
        const Inputs in = random_inputs(n, s.d, 11);
        const Matrix W_x = Random(21).normal_matrix(s.d, s.d, 1.0f / std::sqrt(static_cast<float>(s.d)));
        const Matrix W_h = Random(22).normal_matrix(s.d, s.d, 1.0f / std::sqrt(static_cast<float>(s.d)));
        const Cost a = measure([&] { materialised_attention(in.Q, in.K, in.V); });
        const Cost h = measure([&] { recurrent_layer(in.Q, W_x, W_h); });
        if (r.first_loss == 0 && a.seconds > h.seconds) r.first_loss = n;
        r.crossover.push_back({n, a.seconds, h.seconds});
    }
    // 2. materialised attention grows as n²
    sweep_materialised(r, s, measure);
    // 3. the online softmax, one query of 8 keys, d = 4
    r.tiny = random_inputs(8, 4, 5);
    r.trace = online_softmax_one_query(r.tiny.Q, 0, r.tiny.K, r.tiny.V);
    r.tiny_full = materialised_attention(r.tiny.Q, r.tiny.K, r.tiny.V);
    // 4. tiled streaming against materialised, then the sweeps
    r.n_check = std::min<std::size_t>(1000, s.max_n);  // not a multiple of the blocks
    const Inputs c = random_inputs(r.n_check, s.d, 7);
    r.tiled_error =
        max_abs_difference(streaming_attention(c.Q, c.K, c.V, s.blocks), materialised_attention(c.Q, c.K, c.V));
    r.causal_error = max_abs_difference(streaming_attention(c.Q, c.K, c.V, s.blocks, true),
                                           materialised_attention(c.Q, c.K, c.V, true));
    sweep_streaming_and_sparse(r, s, measure);
    // 5. the price of fewer keys: their error against exact attention
    r.n_error = std::min<std::size_t>(4096, s.max_n);
    for (const auto& [name, in] : {std::pair<std::string, Inputs>{"random", random_inputs(r.n_error, s.d, 31)},
                                   std::pair<std::string, Inputs>{"local", local_inputs(r.n_error, s.d, 41)}}) {
        const Matrix exact = streaming_attention(in.Q, in.K, in.V, s.blocks);
        const Matrix w = sliding_window_attention(in.Q, in.K, in.V, s.window, s.blocks);
        const Matrix g = dilated_attention(in.Q, in.K, in.V, s.pairs, s.blocks);
        r.errors.push_back({name, max_abs_difference(w, exact), relative_error(w, exact),
                            max_abs_difference(g, exact), relative_error(g, exact)});
    }
    // 6. every method on one small input
    r.small = random_inputs(32, s.d, 3);
    const Inputs& x = r.small;
    r.output_full = materialised_attention(x.Q, x.K, x.V);
    r.output_streaming = streaming_attention(x.Q, x.K, x.V, s.blocks);
    r.output_window = sliding_window_attention(x.Q, x.K, x.V, r.small_window, s.blocks);
    r.output_dilated = dilated_attention(x.Q, x.K, x.V, r.small_pairs, s.blocks);
    return r;
}

StreamingOnly measure_streaming_only(const Settings& s) {
    StreamingOnly r;
    r.in = random_inputs(s.max_n, s.d, 1);
    const std::size_t kept = std::min<std::size_t>(4, s.max_n);  // a few queries, to check the result
    r.first_queries = xt::view(r.in.Q, xt::range(0, kept), xt::all());
    const double start = cpu_seconds();
    streaming_attention_in_place(r.in.Q, r.in.K, r.in.V, s.blocks);  // the output overwrites Q
    r.seconds = cpu_seconds() - start;
    r.gflops = exact_attention_flops(s.max_n, s.max_n, s.d) / r.seconds / 1e9;
    r.peak = peak_resident_bytes();
    r.tile = clamped_blocks(s.blocks, s.max_n, s.max_n);
    return r;
}

Settings checked_settings(Settings s) {
    s.pairs = parse_pairs(s.pairs_flag);
    s.memory_limit = memory_limit_bytes();
    const AttentionBlocks tile = clamped_blocks(s.blocks, s.max_n, s.max_n);
    require_memory(fmt::format("--max-n {}: streaming attention at n = {}, d = {}, in tiles of {} × {} (--block-q, "
                               "--block-k)",
                               s.max_n, s.max_n, s.d, tile.q, tile.k),
                   add_bytes(bytes_of_floats({3, s.max_n, s.d}), streaming_extra_bytes(s.max_n, s.d, s.blocks)),
                   s.memory_limit);
    return s;
}

Cost measure_in_a_child(const std::function<void()>& work) {
    const Measured m = measure_in_child(work);
    return Cost{m.seconds, double(m.peak_bytes)};
}
