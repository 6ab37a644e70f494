// Chapter 10 · Long sequences: the quadratic cost, measured, and what beats it
//
// Self-attention compares every token with every other: n² scores per head.
// Time grows with n², and so does memory if the n × n matrix is stored. This
// chapter measures both on your machine, then shows the two ways out:
//
//   1. compute the SAME result without storing the n × n matrix (streaming
//      attention: the online softmax, tiled as in FlashAttention-2), and
//   2. attend to FEWER keys (a sliding window, LongNet's dilated segments),
//      which is faster still but no longer the same result.
//
// Shapes: Q, K, V (n × d), one head, d_k = d_v = d; weights (n × n) when
// materialised; one tile of scores (block_q × block_k) when streamed.
// The kernels live in common/math/long_attention.hpp, shared with the tests and bench/.
//
// Every timing uses one core (one OpenBLAS thread), so the methods compare
// like for like. The printed times differ from run to run; the claims do not.
#include <algorithm>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <xtensor/xview.hpp>

#include "common/math/input_error.hpp"
#include "common/lesson/lesson.hpp"
#include "common/math/long_attention.hpp"
#include "common/math/matmul.hpp"
#include "common/math/memory_budget.hpp"
#include "common/math/random.hpp"
#include "common/lesson/text_table.hpp"

namespace {

// Times are CPU seconds of this process (std::clock): with one thread they
// equal the wall-clock time on an idle machine, and other programs sharing the
// processor do not inflate them.
double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

// One measurement: the time of one call, and the peak memory it added.
struct Measured {
    double seconds = 0.0;
    std::uint64_t peak_bytes = 0;  // 0: not measured (no /proc, or fork failed)
};

// Times `work` in a child process, whose peak resident memory (VmHWM) minus its
// resident memory at the start is the memory the work itself needed. The
// inputs are made before the fork, so they are not counted.
//
// The time is the best of up to three rounds (fewer when a round is long), each
// round the mean of as many calls as fill 5 ms (so a call of a few µs is not
// all clock noise). Anything above the best round is the rest of the machine
// getting in the way: the operating system finding fresh pages, another program.
Measured measure(const std::function<void()>& work) {
    const auto run = [&work] {
        // Keep what a round frees for the next round (glibc returns large blocks
        // to the operating system at once, and taking them back costs a page
        // fault per 4 KiB, which on a virtual machine can outweigh the arithmetic).
        mallopt(M_MMAP_THRESHOLD, 32 << 20);  // the largest glibc allows
        mallopt(M_TRIM_THRESHOLD, 1 << 30);
        Measured m;
        const std::uint64_t before = current_resident_bytes();
        const double start = cpu_seconds();
        m.seconds = std::numeric_limits<double>::infinity();
        for (int round = 0; round < 3 && (round == 0 || cpu_seconds() - start < 0.25); ++round) {
            const double round_start = cpu_seconds();
            int calls = 0;
            do {
                work();
                ++calls;
            } while (cpu_seconds() - round_start < 0.005);
            m.seconds = std::min(m.seconds, (cpu_seconds() - round_start) / calls);
            if (round == 0) {  // the memory of the first round: later rounds may add what a
                               // sanitizer holds back from reuse, which the work never needed
                const std::uint64_t peak = peak_resident_bytes();
                m.peak_bytes = peak > before ? peak - before : 0;
            }
        }
        return m;
    };
    int channel[2];
    std::fflush(stdout);  // or the child would print the parent's buffered text again
    if (pipe(channel) != 0) return run();
    const pid_t child = fork();
    if (child < 0) {
        close(channel[0]);
        close(channel[1]);
        Measured m = run();
        m.peak_bytes = 0;
        return m;
    }
    if (child == 0) {
        close(channel[0]);
        const Measured m = run();
        const bool sent = write(channel[1], &m, sizeof m) == static_cast<ssize_t>(sizeof m);
        _exit(sent ? 0 : 1);
    }
    close(channel[1]);
    Measured m;
    const bool received = read(channel[0], &m, sizeof m) == static_cast<ssize_t>(sizeof m);
    close(channel[0]);
    int status = 0;
    waitpid(child, &status, 0);
    if (!received || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        throw std::runtime_error("a measurement's child process failed (out of memory?)");
    return m;
}

std::string time_text(double s) {
    if (s < 1e-3) return fmt::format("{:.1f} µs", s * 1e6);
    if (s < 1.0) return fmt::format("{:.2f} ms", s * 1e3);
    return fmt::format("{:.2f} s", s);
}

std::string memory_text(std::uint64_t bytes) { return bytes == 0 ? "—" : format_bytes(bytes); }

// The least-squares slope of log y against log x: y ∝ x^slope.
double loglog_slope(const std::vector<double>& x, const std::vector<double>& y) {
    const std::size_t k = std::min(x.size(), y.size());
    if (k < 2) return std::numeric_limits<double>::quiet_NaN();
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < k; ++i) {
        const double lx = std::log(x[i]), ly = std::log(y[i]);
        sx += lx;
        sy += ly;
        sxx += lx * lx;
        sxy += lx * ly;
    }
    const double kk = static_cast<double>(k);
    return (kk * sxy - sx * sy) / (kk * sxx - sx * sx);
}

// "n^1.97"; "n^?" when a sweep had a single length
std::string power(double exponent) {
    return std::isnan(exponent) ? "n^?" : fmt::format("n^{:.2f}", exponent);
}

// The points of a sweep with n ≥ from (short runs are dominated by fixed costs).
struct Sweep {
    std::string name;
    char mark;
    std::vector<double> n, seconds, bytes;
    double slope_of(const std::vector<double>& y, double from) const {
        std::vector<double> xs, ys;
        for (std::size_t i = 0; i < n.size(); ++i)
            if (n[i] >= from && y[i] > 0) xs.push_back(n[i]), ys.push_back(y[i]);
        if (xs.size() < 2 && n.size() >= 2) {  // a short sweep: the two longest lengths
            xs = {n[n.size() - 2], n.back()};
            ys = {y[n.size() - 2], y.back()};
        }
        return loglog_slope(xs, ys);
    }
};

// A log-log chart of time against n, one letter per method.
std::string loglog_chart(const std::vector<Sweep>& series) {
    double x0 = 1e300, x1 = 0, y0 = 1e300, y1 = 0;
    for (const Sweep& s : series)
        for (std::size_t i = 0; i < s.n.size(); ++i) {
            x0 = std::min(x0, s.n[i]), x1 = std::max(x1, s.n[i]);
            y0 = std::min(y0, s.seconds[i]), y1 = std::max(y1, s.seconds[i]);
        }
    if (x1 <= x0 || y1 <= y0) return "";
    constexpr int width = 56, height = 14;
    std::vector<std::string> grid(height, std::string(width, ' '));
    const auto column = [&](double n) {
        return static_cast<int>(std::lround((std::log(n) - std::log(x0)) / (std::log(x1) - std::log(x0)) * (width - 1)));
    };
    const auto row = [&](double t) {
        return height - 1 -
               static_cast<int>(std::lround((std::log(t) - std::log(y0)) / (std::log(y1) - std::log(y0)) * (height - 1)));
    };
    for (const Sweep& s : series)
        for (std::size_t i = 0; i < s.n.size(); ++i)
            grid[static_cast<std::size_t>(row(s.seconds[i]))][static_cast<std::size_t>(column(s.n[i]))] = s.mark;
    std::string out;
    for (int r = 0; r < height; ++r) {
        const double t = std::exp(std::log(y1) - (std::log(y1) - std::log(y0)) * r / (height - 1));
        const std::string label = (r % 3 == 0 || r == height - 1) ? time_text(t) : "";
        out += fmt::format("{:>10} │{}\n", label, grid[static_cast<std::size_t>(r)]);
    }
    std::string axis;
    for (int c = 0; c < width; ++c) axis += "─";
    out += fmt::format("{:>10} └{}\n", "", axis);
    std::string labels(width + 12, ' ');
    for (double n = x0; n <= x1 * 1.0001; n *= 4) {
        const std::string text = fmt::format("{:g}", n);
        const std::size_t at = static_cast<std::size_t>(column(n)) + 12;
        if (at + text.size() <= labels.size()) labels.replace(at, text.size(), text);
    }
    out += labels + "  n (log scale)\n";
    std::string legend = "           ";
    for (const Sweep& s : series) legend += fmt::format("  {} {}", s.mark, s.name);
    return out + legend + "\n";
}

// "256:1,1024:4" → {(256, 1), (1024, 4)}
// "256" → 256; 0 for anything but plain digits (std::stoul would read "-1" as 2^64 − 1).
std::size_t positive_integer(const std::string& text) {
    if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) return 0;
    return std::stoul(text);
}

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

// Streaming attention for ONE query, as a loop over the keys: the whole idea
// in a few lines. The running maximum m, denominator l and output o always
// equal softmax attention over the keys seen so far.
struct StreamTrace {
    std::vector<TextRow> rows;  // one per key, for printing
    Vector output;              // (d_v)
};

StreamTrace stream_one_query(const Matrix& q, std::size_t row, const Matrix& K, const Matrix& V) {
    const std::size_t d = cols(K), dv = cols(V);
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    float m = -std::numeric_limits<float>::infinity();  // the largest score so far
    float l = 0.0f;                                     // Σ exp(score − m) so far
    Vector o = xt::zeros<float>({dv});                  // Σ exp(score − m) · v so far
    StreamTrace trace;
    for (std::size_t j = 0; j < rows(K); ++j) {
        float s = 0.0f;
        for (std::size_t c = 0; c < d; ++c) s += q(row, c) * K(j, c);
        s *= scale;
        const float m_new = std::max(m, s);
        const float rescale = std::exp(m - m_new);  // the old terms were relative to m: shift them to m_new
        const float p = std::exp(s - m_new);
        l = l * rescale + p;
        for (std::size_t c = 0; c < dv; ++c) o(c) = o(c) * rescale + p * V(j, c);
        trace.rows.push_back({fmt::format("{}", j), fmt::format("{:.3f}", s), fmt::format("{:.3f}", m_new),
                              fmt::format("{:.3f}", rescale), fmt::format("{:.3f}", p), fmt::format("{:.3f}", l),
                              fmt::format("{:.3f}", o(0) / l)});
        m = m_new;
    }
    trace.output = o / l;
    return trace;
}

// A recurrent layer of width d: h_t = tanh(x_t · W_x + h_{t−1} · W_h), one
// step after another. The input half is one matrix product; the recurrence is
// n dependent vector–matrix products, written so the compiler vectorises them.
Matrix recurrent_layer(const Matrix& X, const Matrix& W_x, const Matrix& W_h) {
    const std::size_t n = rows(X), d = cols(W_h);
    Matrix H = matmul(X, W_x);  // (n × d): x_t · W_x for every t at once
    for (std::size_t t = 0; t < n; ++t) {
        float* h = H.data() + t * d;
        if (t > 0) {
            const float* previous = H.data() + (t - 1) * d;
            for (std::size_t j = 0; j < d; ++j) {  // h += previous_j · (row j of W_h)
                const float* w = W_h.data() + j * d;
                for (std::size_t i = 0; i < d; ++i) h[i] += previous[j] * w[i];
            }
        }
        for (std::size_t i = 0; i < d; ++i) h[i] = std::tanh(h[i]);
    }
    return H;
}

struct Inputs {
    Matrix Q, K, V;  // (n × d) each
};

Inputs random_inputs(std::size_t n, std::size_t d, std::uint64_t seed) {
    return {Random(seed).normal_matrix(n, d), Random(seed + 1).normal_matrix(n, d),
            Random(seed + 2).normal_matrix(n, d)};
}

// Tokens that resemble their neighbours: x_i = ρ·x_{i−1} + √(1−ρ²)·z_i, so
// q_i · k_j / √d ≈ √d · ρ^|i−j| and each query's weight sits near the diagonal.
Inputs local_inputs(std::size_t n, std::size_t d, std::uint64_t seed) {
    const float rho = 0.99f, fresh = std::sqrt(1.0f - rho * rho);
    Matrix X = Random(seed).normal_matrix(n, d);
    for (std::size_t i = 1; i < n; ++i)
        for (std::size_t c = 0; c < d; ++c) X(i, c) = rho * X(i - 1, c) + fresh * X(i, c);
    return {X, X, Random(seed + 2).normal_matrix(n, d)};
}

// ‖a − b‖ / ‖b‖ over all entries.
double relative_error(const Matrix& a, const Matrix& b) {
    double diff = 0, ref = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double e = static_cast<double>(a.flat(i)) - b.flat(i);
        diff += e * e;
        ref += static_cast<double>(b.flat(i)) * b.flat(i);
    }
    return std::sqrt(diff / ref);
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch10_long_sequences", "Chapter 10 · Long sequences: the quadratic cost, measured");
    std::size_t max_n = 16384, d = 64, window = 256;
    AttentionBlocks blocks;
    std::string pairs_flag = "256:1,1024:4,4096:16";
    double budget_s = 8.0;
    bool streaming_only = false;
    auto& cli = lesson.cli();
    cli.add_option("--max-n", max_n, "the longest sequence measured (the time budget may stop earlier)")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{256}, std::size_t{1} << 30));
    cli.add_option("--d", d, "width of queries, keys and values (one head)")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{1}, std::size_t{4096}));
    cli.add_option("--block-q", blocks.q, "queries per tile of streaming attention")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{1}, std::size_t{65536}));
    cli.add_option("--block-k", blocks.k, "keys per tile of streaming attention")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{1}, std::size_t{65536}));
    cli.add_option("--window", window, "keys each query sees in sliding-window attention")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30));
    cli.add_option("--pairs", pairs_flag, "LongNet's (segment w : dilation r) pairs, comma-separated")
        ->capture_default_str();
    cli.add_option("--budget-s", budget_s, "seconds the length sweeps may take (about; the whole run takes more)")
        ->capture_default_str()
        ->check(CLI::Range(0.1, 3600.0));
    cli.add_flag("--streaming-only", streaming_only,
                 "measure streaming attention alone at --max-n (its time and peak memory), nothing else");

    return lesson.run(argc, argv, [&] {
        const std::vector<DilatedPair> pairs = parse_pairs(pairs_flag);
        const std::uint64_t limit = memory_limit_bytes();
        // The guard: even the streaming version needs Q, K, V and its output at --max-n.
        const std::uint64_t inputs_at_max = bytes_of_floats({3, max_n, d});
        require_memory(fmt::format("--max-n {}: streaming attention at n = {}, d = {}", max_n, max_n, d),
                       add_bytes(inputs_at_max, streaming_extra_bytes(max_n, d, blocks)), limit);
        set_blas_threads(1);

        // ── --streaming-only: one length, one kernel, its peak memory ───────
        if (streaming_only) {
            lesson.step(fmt::format("Streaming attention alone at n = {}, d = {}", max_n, d));
            Inputs in = random_inputs(max_n, d, 1);
            const std::size_t kept = std::min<std::size_t>(4, max_n);  // a few queries, to check the result
            const Matrix first_queries = xt::view(in.Q, xt::range(0, kept), xt::all());
            const double start = cpu_seconds();
            streaming_attention_in_place(in.Q, in.K, in.V, blocks);  // the output overwrites Q
            const double s = cpu_seconds() - start;
            const std::uint64_t peak = peak_resident_bytes();
            fmt::print("{}", format_table({"what", "value"},
                                          {{"time", time_text(s)},
                                           {"GFLOP/s (4·n²·d / time)",
                                            fmt::format("{:.1f}", exact_attention_flops(max_n, max_n, d) / s / 1e9)},
                                           {"Q, K, V (the output overwrites Q)", format_bytes(inputs_at_max)},
                                           {"one tile of scores", format_bytes(bytes_of_floats({blocks.q, blocks.k}))},
                                           {"peak resident memory of this process (VmHWM)", memory_text(peak)},
                                           {"materialised weights would need",
                                            format_bytes(bytes_of_floats({max_n, max_n}))}}));
            lesson.step("Self-checks");
            const Matrix expected = materialised_attention(first_queries, in.K, in.V);  // (kept × n) weights only
            const Matrix got = xt::view(in.Q, xt::range(0, kept), xt::all());
            lesson.checks().close(fmt::format("the first {} outputs equal materialised attention over all {} keys",
                                              kept, max_n),
                                  max_abs_difference(got, expected), 1e-5);
            return;
        }

        // ── Step 1: the paper's cost table, and the crossover measured ──────
        lesson.step("What a layer costs (Vaswani et al. 2017, Table 1), and where attention loses");
        fmt::print("{}", format_table({"layer", "work per layer", "sequential steps", "longest path"},
                                      {{"self-attention", "O(n²·d)", "O(1)", "O(1)"},
                                       {"recurrent", "O(n·d²)", "O(n)", "O(n)"},
                                       {"convolution (kernel k)", "O(k·n·d²)", "O(1)", "O(log_k n)"},
                                       {"self-attention, window w", "O(w·n·d)", "O(1)", "O(n/w)"}}));
        lesson.say(fmt::format(
            "\nAttention does n² comparisons of width d; a recurrent layer does n steps of a\n"
            "d × d product. On paper attention is cheaper while n < d. Measured, width d = {}\n"
            "(attention: softmax(Q·Kᵀ/√d)·V; recurrent: h_t = tanh(x_t·W_x + h_(t−1)·W_h)):\n",
            d));
        std::vector<TextRow> crossover;
        std::size_t first_loss = 0;
        for (std::size_t n = std::max<std::size_t>(d / 4, 4); n <= 32 * d && n <= max_n; n *= 2) {
            const Inputs in = random_inputs(n, d, 11);
            const Matrix W_x = Random(21).normal_matrix(d, d, 1.0f / std::sqrt(static_cast<float>(d)));
            const Matrix W_h = Random(22).normal_matrix(d, d, 1.0f / std::sqrt(static_cast<float>(d)));
            const Measured a = measure([&] { materialised_attention(in.Q, in.K, in.V); });
            const Measured r = measure([&] { recurrent_layer(in.Q, W_x, W_h); });
            if (first_loss == 0 && a.seconds > r.seconds) first_loss = n;
            crossover.push_back({fmt::format("{}", n), fmt::format("{:g}", double(n) / double(d)),
                                 time_text(a.seconds), time_text(r.seconds),
                                 fmt::format("{:.2f}", a.seconds / r.seconds)});
        }
        fmt::print("{}", format_table({"n", "FLOPs ratio n/d", "attention", "recurrent", "time ratio"}, crossover));
        lesson.say(first_loss > 0
                       ? fmt::format("\nHere attention becomes the more expensive layer at n = {} = {:g}·d. The\n"
                                     "FLOPs say n = d; the recurrent layer loses ground because its n steps\n"
                                     "wait for each other and cannot use the matrix-multiply units as fully.",
                                     first_loss, double(first_loss) / double(d))
                       : "\nAttention stayed cheaper at every length measured here: its matrix products\n"
                         "run at full speed while the recurrent steps wait for each other. Try --d 256.");

        // ── Step 2: quadratic growth, measured ──────────────────────────────
        lesson.step("Materialised attention: time and memory grow as n²");
        lesson.say(
            "scores = Q·Kᵀ/√d and weights = softmax(scores) are stored in full, (n × n) floats,\n"
            "then output = weights · V. Each length is measured in a child process; its peak\n"
            "memory is what the computation added (the inputs are not counted).\n");
        Sweep full{"materialised", 'M', {}, {}, {}};
        std::vector<TextRow> growth;
        std::string refusal;  // a length too long for this machine's memory
        double spent = 0.0;
        for (std::size_t n = 256; n <= max_n; n *= 2) {
            const std::uint64_t need = materialised_extra_bytes(n, n, d);
            if (!fits_in_memory(add_bytes(need, bytes_of_floats({3, n, d})), limit)) {
                growth.push_back({fmt::format("{}", n), "refused", format_bytes(bytes_of_floats({n, n})), "—", ""});
                refusal = fmt::format("\nn = {} was refused before allocating: it would need {}, more than the {}\n"
                                      "this machine can spare. The streaming version below goes on without it.",
                                      n, format_bytes(add_bytes(need, bytes_of_floats({3, n, d}))),
                                      format_bytes(limit));
                break;
            }
            const Inputs in = random_inputs(n, d, 1);
            const Measured m = measure([&] { materialised_attention(in.Q, in.K, in.V); });
            spent += m.seconds;
            const std::string ratio =
                full.seconds.empty() ? "" : fmt::format("{:.1f}×", m.seconds / full.seconds.back());
            full.n.push_back(double(n)), full.seconds.push_back(m.seconds), full.bytes.push_back(double(m.peak_bytes));
            growth.push_back({fmt::format("{}", n), time_text(m.seconds), format_bytes(bytes_of_floats({n, n})),
                              memory_text(m.peak_bytes), ratio});
            // A next length that would not fit is shown as refused, whatever the budget.
            const bool next_fits = 2 * n > max_n || fits_in_memory(add_bytes(materialised_extra_bytes(2 * n, 2 * n, d),
                                                                             bytes_of_floats({3, 2 * n, d})),
                                                                   limit);
            if (next_fits && spent + 4.5 * m.seconds > 0.35 * budget_s) break;  // the next takes about 4× as long
        }
        fmt::print("{}", format_table({"n", "time", "weights n×n×4 B", "peak memory", "time / previous"}, growth));
        if (!refusal.empty()) lesson.say(refusal);
        const double full_slope = full.slope_of(full.seconds, 1024);
        const double full_memory_slope = full.slope_of(full.bytes, 1024);
        lesson.say(fmt::format(
            "\nFitted on log-log axes (n ≥ 1024, or the two longest): time ∝ {}, peak memory ∝ {}.\n"
            "Doubling n multiplies both by about 4. At n = 100 000 one head's weights alone\n"
            "would need {} (this machine can spare {}); a model with 32 heads, 32 times that.",
            power(full_slope), power(full_memory_slope), format_bytes(bytes_of_floats({100000, 100000})), format_bytes(limit)));

        // ── Step 3: the online softmax, one query ───────────────────────────
        lesson.step("The online softmax: one query, one pass over the keys");
        lesson.say(
            "softmax needs the maximum and the sum of all scores before the first weight is\n"
            "known, so it seems to need the whole row. It does not: keep a running maximum m,\n"
            "a running denominator l = Σ exp(s_j − m) and a running output o = Σ exp(s_j − m)·v_j.\n"
            "When a new score raises the maximum, multiply l and o by exp(m_old − m_new): that\n"
            "re-expresses every earlier term relative to the new maximum. Query 0 of 8 keys, d = 4:\n");
        const Inputs tiny = random_inputs(8, 4, 5);
        const StreamTrace trace = stream_one_query(tiny.Q, 0, tiny.K, tiny.V);
        fmt::print("{}", format_table({"key j", "s_j = q·k_j/√d", "m", "exp(m_old−m)", "exp(s_j−m)", "l", "o_0 / l"},
                                      trace.rows));
        const Matrix tiny_full = materialised_attention(tiny.Q, tiny.K, tiny.V);
        double one_query_error = 0.0;
        for (std::size_t c = 0; c < cols(tiny.V); ++c)
            one_query_error = std::max(one_query_error, double(std::fabs(trace.output(c) - tiny_full(0, c))));
        lesson.say(fmt::format(
            "\nThe last row's o_0 / l is the first entry of the attention output: the loop gives\n"
            "{:.6f}, the materialised softmax {:.6f}. Only m, l and o were kept: O(d) memory.",
            trace.output(0), tiny_full(0, 0)));

        // ── Step 4: tiled, the FlashAttention-2 ordering ─────────────────────
        lesson.step("Streaming attention, tiled: exact, in linear memory");
        lesson.say(fmt::format(
            "The same recurrence for a block of {} queries against a block of {} keys at a time\n"
            "(FlashAttention-2's order: the outer loop over query blocks, the inner over key\n"
            "blocks). Each tile is two BLAS products, S = Q_blk·K_blkᵀ/√d and O_blk += P·V_blk,\n"
            "with the exp and the rescaling in between; only one ({} × {}) tile of scores exists.",
            blocks.q, blocks.k, blocks.q, blocks.k));
        const std::size_t n_check = std::min<std::size_t>(1000, max_n);  // not a multiple of the blocks
        const Inputs check_in = random_inputs(n_check, d, 7);
        const Matrix check_full = materialised_attention(check_in.Q, check_in.K, check_in.V);
        const double tiled_error =
            max_abs_difference(streaming_attention(check_in.Q, check_in.K, check_in.V, blocks), check_full);
        const double causal_error =
            max_abs_difference(streaming_attention(check_in.Q, check_in.K, check_in.V, blocks, true),
                               materialised_attention(check_in.Q, check_in.K, check_in.V, true));
        lesson.say(fmt::format("At n = {}: max |streaming − materialised| = {:.1e} (causal: {:.1e}).\n", n_check,
                               tiled_error, causal_error));
        Sweep stream{"streaming", 'S', {}, {}, {}};
        std::vector<TextRow> versus;
        spent = 0.0;
        for (std::size_t n = 256; n <= max_n; n *= 2) {
            const Inputs in = random_inputs(n, d, 1);
            const Measured m = measure([&] { streaming_attention(in.Q, in.K, in.V, blocks); });
            spent += m.seconds;
            stream.n.push_back(double(n)), stream.seconds.push_back(m.seconds),
                stream.bytes.push_back(double(m.peak_bytes));
            const std::size_t k = stream.n.size() - 1;
            const bool have_full = k < full.n.size();
            versus.push_back({fmt::format("{}", n), have_full ? time_text(full.seconds[k]) : std::string("—"),
                              time_text(m.seconds), have_full ? fmt::format("{:.1f}×", full.seconds[k] / m.seconds) : std::string(),
                              fmt::format("{:.1f}", exact_attention_flops(n, n, d) / m.seconds / 1e9),
                              have_full ? memory_text(std::uint64_t(full.bytes[k])) : std::string("—"), memory_text(m.peak_bytes)});
            if (spent + 4.5 * m.seconds > 0.35 * budget_s) break;
        }
        fmt::print("{}", format_table({"n", "materialised", "streaming", "speed-up", "GFLOP/s", "memory (mat.)",
                                       "memory (str.)"},
                                      versus));
        const double stream_slope = stream.slope_of(stream.seconds, 1024);
        const double stream_memory_slope = stream.slope_of(stream.bytes, 4096);
        lesson.say(fmt::format(
            "\nStreaming: time ∝ {} (still every pair of tokens), memory ∝ {} (n ≥ 4096;\n"
            "below that the output is smaller than the allocator's granularity). The work is the\n"
            "same; not writing and re-reading the n × n matrix is what makes it faster too.",
            power(stream_slope), power(stream_memory_slope)));

        // ── Step 5: sparse patterns ────────────────────────────────────────
        lesson.step("Fewer keys: a sliding window and LongNet's dilated attention");
        lesson.say(fmt::format(
            "Sliding window (Longformer): query i sees its {} nearest keys. Dilated (LongNet):\n"
            "pairs {}: segments of w tokens, every r-th token, the pairs'\n"
            "outputs mixed by their softmax denominators. Both cost O(n) for fixed w.\n",
            window, pairs_text(pairs)));
        Sweep slide{"window", 'W', {}, {}, {}}, dilated{"dilated", 'D', {}, {}, {}};
        std::vector<TextRow> sparse;
        spent = 0.0;
        for (std::size_t n = 256; n <= max_n; n *= 2) {
            const Inputs in = random_inputs(n, d, 1);
            const Measured w = measure([&] { sliding_window_attention(in.Q, in.K, in.V, window, blocks); });
            const Measured g = measure([&] { dilated_attention(in.Q, in.K, in.V, pairs, blocks); });
            spent += w.seconds + g.seconds;
            slide.n.push_back(double(n)), slide.seconds.push_back(w.seconds), slide.bytes.push_back(double(w.peak_bytes));
            dilated.n.push_back(double(n)), dilated.seconds.push_back(g.seconds),
                dilated.bytes.push_back(double(g.peak_bytes));
            const std::size_t k = slide.n.size() - 1;
            sparse.push_back({fmt::format("{}", n), k < stream.n.size() ? time_text(stream.seconds[k]) : std::string("—"),
                              time_text(w.seconds), time_text(g.seconds)});
            if (spent + 2.5 * (w.seconds + g.seconds) > 0.2 * budget_s) break;  // linear: about 2× per doubling
        }
        fmt::print("{}", format_table({"n", "streaming (exact)", "window", "dilated"}, sparse));
        lesson.say(fmt::format("\nFitted (n ≥ 4096): window ∝ {}, dilated ∝ {}. Time against n:\n",
                               power(slide.slope_of(slide.seconds, 4096)), power(dilated.slope_of(dilated.seconds, 4096))));
        fmt::print("{}", loglog_chart({full, stream, slide, dilated}));
        // The same curves as pictures (--svg): log–log, so n² and n are straight lines.
        const auto seconds_of = [](const Sweep& s) { return Series{s.name, s.n, s.seconds}; };
        lesson.plot("cost_time", "Time of one attention layer against n (one head, one core)",
                    {"sequence length n (tokens)", true}, {"time (s)", true},
                    {seconds_of(full), seconds_of(stream), seconds_of(slide), seconds_of(dilated)});
        const auto mib_of = [](const Sweep& s) {
            Series series{s.name, {}, {}};
            for (std::size_t i = 0; i < s.n.size(); ++i)
                if (s.bytes[i] > 0) series.x.push_back(s.n[i]), series.y.push_back(s.bytes[i] / (1024.0 * 1024.0));
            return series;
        };
        lesson.plot("cost_memory", "Peak memory one attention layer adds, against n",
                    {"sequence length n (tokens)", true}, {"peak memory (MiB)", true},
                    {mib_of(full), mib_of(stream), mib_of(slide), mib_of(dilated)});

        const std::size_t n_error = std::min<std::size_t>(4096, max_n);
        lesson.say(fmt::format(
            "\nThe price: their error against full attention at n = {}, relative = ‖approx − full‖ / ‖full‖.\n"
            "\"random\" tokens attend everywhere; \"local\" tokens resemble their neighbours\n"
            "(x_i = 0.99·x_(i−1) + noise), so their weight already sits near the diagonal:\n",
            n_error));
        std::vector<TextRow> errors;
        for (const auto& [name, in] : {std::pair<std::string, Inputs>{"random", random_inputs(n_error, d, 31)},
                                       std::pair<std::string, Inputs>{"local", local_inputs(n_error, d, 41)}}) {
            const Matrix exact = streaming_attention(in.Q, in.K, in.V, blocks);
            const Matrix w = sliding_window_attention(in.Q, in.K, in.V, window, blocks);
            const Matrix g = dilated_attention(in.Q, in.K, in.V, pairs, blocks);
            errors.push_back({name, fmt::format("{:.3f}", max_abs_difference(w, exact)),
                              fmt::format("{:.3f}", relative_error(w, exact)),
                              fmt::format("{:.3f}", max_abs_difference(g, exact)),
                              fmt::format("{:.3f}", relative_error(g, exact))});
        }
        fmt::print("{}", format_table({"inputs", "window max err", "window relative", "dilated max err",
                                       "dilated relative"},
                                      errors));
        lesson.say(
            "\nOn random tokens the missing keys carried most of the weight, and the outputs are\n"
            "far off; on local tokens the window keeps nearly all of it. A sparse pattern is a\n"
            "bet on where the weight is; streaming attention makes no bet.");

        // ── Step 6: every method on one small input ─────────────────────────
        const std::size_t n_small = 32, small_window = 8;
        const std::vector<DilatedPair> small_pairs = {{8, 1}, {32, 4}};
        lesson.step(fmt::format("All four on one small input (n = {}, window {}, pairs {})", n_small, small_window,
                                pairs_text(small_pairs)));
        const Inputs small = random_inputs(n_small, d, 3);
        const Labels tokens = numbered("t", n_small), dims = numbered("d", d);
        lesson.keep_for_dump("Q", small.Q);
        lesson.keep_for_dump("K", small.K);
        lesson.keep_for_dump("V", small.V);
        const Matrix output_full = materialised_attention(small.Q, small.K, small.V);
        const Matrix output_streaming = streaming_attention(small.Q, small.K, small.V, blocks);
        const Matrix output_window = sliding_window_attention(small.Q, small.K, small.V, small_window, blocks);
        const Matrix output_dilated = dilated_attention(small.Q, small.K, small.V, small_pairs, blocks);
        lesson.show("output_full", "softmax(Q·Kᵀ/√d)·V", output_full, tokens, dims);
        lesson.show("output_streaming", "tiled online softmax", output_streaming, tokens, dims);
        lesson.show("output_window", "each query: its 8 nearest keys", output_window, tokens, dims);
        lesson.show("output_dilated", "LongNet pairs mixed", output_dilated, tokens, dims);

        // ── Self-checks ─────────────────────────────────────────────────────
        lesson.step("Self-checks");
        auto& check = lesson.checks();
        check.close("the one-query loop of step 3 equals the materialised softmax", one_query_error, 1e-5);
        check.close(fmt::format("tiled streaming equals materialised attention (n = {})", n_check), tiled_error,
                    1e-4);
        check.close("... and with a causal mask", causal_error, 1e-4);
        check.close("streaming equals materialised on the small input",
                    max_abs_difference(output_streaming, output_full), 1e-5);
        check.close("a window of n keys is full attention",
                    max_abs_difference(sliding_window_attention(small.Q, small.K, small.V, n_small, blocks),
                                       output_full),
                    1e-5);
        check.close("dilated attention with the one pair (w = n, r = 1) is full attention",
                    max_abs_difference(dilated_attention(small.Q, small.K, small.V, {{n_small, 1}}, blocks),
                                       output_full),
                    1e-5);
        check.that("a length of 10 000 000 is refused before allocating (its weights: " +
                       format_bytes(bytes_of_floats({10000000, 10000000})) + ")",
                   !fits_in_memory(materialised_extra_bytes(10000000, 10000000, d), limit));
        if (!full.n.empty() && full.n.back() >= 4096 && std::all_of(full.bytes.begin(), full.bytes.end(), [](double b) { return b > 0; }))
            check.that(fmt::format("materialised memory grows about as n² (fitted n^{:.2f})", full_memory_slope),
                       full_memory_slope > 1.6 && full_memory_slope < 2.4);
        if (stream.n.size() >= 3 && stream.n.back() >= 16384 &&
            std::all_of(stream.bytes.end() - 3, stream.bytes.end(), [](double b) { return b > 0; }))
            check.that(fmt::format("streaming memory grows about as n (fitted n^{:.2f})", stream_memory_slope),
                       stream_memory_slope > 0.6 && stream_memory_slope < 1.4);
    });
}
