#include "chapters/20_sparse_attention/checks.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <xtensor/xview.hpp>

#include "common/display/print.hpp"
#include "common/lesson/attention_tolerance.hpp"
#include "common/reference/attention_by_loops.hpp"

namespace {

// (n × n) 0 where query i reads key j, −∞ elsewhere: the window's and the sinks' rule written
// out again, j ≤ i and (j < s or i − j < w).
Matrix window_mask(std::size_t n, std::size_t w, std::size_t s) {
    Matrix mask({n, n});
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) mask(i, j) = j <= i && (j < s || i - j < w) ? 0.0f : -INFINITY;
    return mask;
}

// (n × n) 0 at the positions topk_index names in row i, −∞ elsewhere.
Matrix kept_mask(const Matrix& index, std::size_t n) {
    Matrix mask = Matrix({n, n});
    mask.fill(-INFINITY);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t a = 0; a < cols(index); ++a)
            if (index(i, a) >= 0.0f && index(i, a) < float(n)) mask(i, std::size_t(index(i, a))) = 0.0f;
    return mask;
}

// Weights and output against the loops: the one further off, relative to its tolerance.
void close_to_loops(SelfChecks& check, const std::string& claim, const Matrix& weights, const Matrix& output,
                    const AttentionByLoops& loops, const AttentionTolerance& t) {
    const double w = max_abs_difference(weights, loops.weights), o = max_abs_difference(output, loops.output);
    if (std::isnan(w) || w / t.weights >= o / t.output) check.close(claim + " (weights)", w, t.weights);
    else check.close(claim + " (output)", o, t.output);
}

// Row i of topk_index: min(k, i + 1) different positions, each ≤ i, and none left out with a
// higher index score than one kept. Returns the first query that breaks it, or n.
std::size_t first_bad_topk_row(const Matrix& index, const Matrix& scores, std::size_t k) {
    const std::size_t n = rows(index);
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<bool> kept(n, false);
        std::size_t count = 0;
        double lowest_kept = INFINITY;
        for (std::size_t a = 0; a < cols(index); ++a) {
            if (index(i, a) < 0.0f) continue;
            const std::size_t j = std::size_t(index(i, a));
            if (j > i || kept[j]) return i;  // a later token, or a key kept twice
            kept[j] = true, ++count, lowest_kept = std::min(lowest_kept, double(scores(i, j)));
        }
        if (count != std::min(k, i + 1)) return i;
        for (std::size_t j = 0; j <= i; ++j)
            if (!kept[j] && double(scores(i, j)) > lowest_kept) return i;
    }
    return n;
}

// Attention with a sink logit σ as plain attention over n + 1 keys: the causal keys, and a
// key n with value 0 whose score is σ for every query (the mask adds it to q·0 = 0).
AttentionByLoops sink_by_loops(const Matrix& Q, const Matrix& K, const Matrix& V, float sigma) {
    const std::size_t n = rows(Q);
    Matrix K1 = xt::zeros<float>({n + 1, cols(K)}), V1 = xt::zeros<float>({n + 1, cols(V)}), mask({n, n + 1});
    for (std::size_t j = 0; j < n; ++j) {
        for (std::size_t c = 0; c < cols(K); ++c) K1(j, c) = K(j, c);
        for (std::size_t c = 0; c < cols(V); ++c) V1(j, c) = V(j, c);
    }
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j <= n; ++j) mask(i, j) = j == n ? sigma : j <= i ? 0.0f : -INFINITY;
    return attention_by_loops(Q, K1, V1, KeysSeen::masked(mask));
}

void check_sink(SelfChecks& check, const SinkHead& h) {
    const std::size_t n = rows(h.Q);
    const AttentionByLoops loops = sink_by_loops(h.Q, h.K, h.V, h.sink_logit(0, 0));
    Matrix weights({n, n + 1});  // the weights and the sink's share side by side, as the loops give them
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) weights(i, j) = h.sink.weights(i, j);
        weights(i, n) = h.sink.sink_share(i, 0);
    }
    close_to_loops(check, fmt::format("sink logit σ = {}: weights and sink share = softmax over the keys and one "
                                      "key of score σ and value 0 (loops, double)", format_number(h.sink_logit(0, 0), 3)),
                   weights, h.sink.output, loops, attention_tolerance(h.Q, h.K, h.V));
}

// Rows [b·n, (b + 1)·n) of M: sequence b of a batch.
Matrix sequence_rows(const Matrix& M, std::size_t b, std::size_t n) {
    return xt::view(M, xt::range(b * n, (b + 1) * n), xt::all());
}

// The shares of the first half (position 0, the current token, what a row misses) of every head,
// from the reference loops' weights in double (with each head's sink logit when the model has one).
void check_shares(SelfChecks& check, const std::string& which, const ModelForward<float>& f, const Matrix& shares,
                  const Matrix* sinks, std::size_t half) {
    const std::size_t n = f.length;
    double worst = 0, tolerance = 0;  // the share farthest off, relative to its tolerance
    for (std::size_t k = 0; k < f.weights.size(); ++k) {
        double first = 0, current = 0, missing = 0, weights_tolerance = 0;
        for (std::size_t b = 0; b < f.batch; ++b) {
            const Matrix Q = sequence_rows(f.Q[k], b, n), K = sequence_rows(f.K[k], b, n),
                         V = sequence_rows(f.V[k], b, n);
            const AttentionByLoops loops = sinks ? sink_by_loops(Q, K, V, (*sinks)(k, 0))
                                                 : attention_by_loops(Q, K, V, KeysSeen::causal());
            weights_tolerance = std::max(weights_tolerance, attention_tolerance(Q, K, V).weights);
            for (std::size_t i = 1; i < half; ++i) {
                double row = 0;
                for (std::size_t j = 0; j <= i; ++j) row += loops.weights(i, j);
                first += loops.weights(i, 0), current += loops.weights(i, i), missing += 1.0 - row;
            }
        }
        const double count = double(f.batch * (half - 1)), t = double(half) * weights_tolerance;
        for (const auto& [mine, reference] : {std::pair{shares(k, 0), first}, std::pair{shares(k, 1), current},
                                               std::pair{shares(k, 2), missing}}) {
            const double e = std::abs(double(mine) - reference / count);
            if (tolerance == 0 || std::isnan(e) || e / t > worst / tolerance) worst = e, tolerance = t;
        }
    }
    check.close(fmt::format("{}: the first half's shares (position 0, current, the sink's) = those of the "
                            "reference weights", which), worst, tolerance);
}

}  // namespace

void check_sparse(SelfChecks& check, const ReadModel& r, const SinkModel& sink) {
    const OneHead& o = r.one;
    const std::size_t n = rows(o.Q), w = r.chosen.window, s = r.chosen.sinks, k = r.chosen.top_k;
    const AttentionTolerance t = attention_tolerance(o.Q, o.K, o.V);
    const AttentionByLoops causal = attention_by_loops(o.Q, o.K, o.V, KeysSeen::causal());
    close_to_loops(check, "no sink logit (σ = −∞): causal softmax attention (loops, double)", o.weights_full,
                   o.output_full, causal, t);
    check_sink(check, sink.head);
    check_shares(check, "no sink", r.plain_forward, r.shares, nullptr, r.settings.half_length);
    check_shares(check, "with a sink logit", sink.forward, sink.shares, &sink.logits, r.settings.half_length);
    const Matrix band = window_mask(n, w, s);
    close_to_loops(check, fmt::format("the rolling buffer of {} sink + {} window slots = attention masked to j < {} "
                                      "or i − j < {} (loops, double)", s, w, s, w),
                   o.weights_window_sinks, o.output_window_sinks,
                   attention_by_loops(o.Q, o.K, o.V, KeysSeen::masked(band)), t);
    close_to_loops(check, fmt::format("window {} + the other {} tokens as sinks (s + w = n) = full causal attention",
                                      w, n - std::min(w, n)),
                   o.all_sinks.weights, o.all_sinks.output, causal, t);
    const std::size_t bad = first_bad_topk_row(o.topk_index, o.index_scores, k);
    check.that(bad == n ? fmt::format("top-{}: every query keeps min(k, i + 1) keys j ≤ i, the highest by the "
                                      "indexer's score", k)
                        : fmt::format("top-{}: query {} keeps a later key, a key twice, too few, or not the best", k, bad),
               bad == n);
    const Matrix kept = kept_mask(o.topk_index, n);
    close_to_loops(check, fmt::format("top-{} = attention masked to the kept keys (loops, double)", k), o.weights_topk,
                   o.output_topk, attention_by_loops(o.Q, o.K, o.V, KeysSeen::masked(kept)), t);
    close_to_loops(check, fmt::format("top-k with k = n = {}: full causal attention", n), o.topk_all.weights,
                   o.topk_all.output, causal, t);
    // the sweeps' first rows keep every key: the trained model's own numbers, exactly
    const Halves& full = r.after;
    const auto off = [&](const Matrix& table, std::size_t c) {
        return std::max(std::abs(table(0, c) - float(full.accuracy_second)), std::abs(table(0, c + 1) - float(full.loss_second)));
    };
    check.close(fmt::format("a window of n = {} keys, with or without sinks, and top-k with k = n (either indexer): "
                            "the model's own accuracy and loss", n),
                std::max({off(r.window_table, 1), off(r.window_table, 3), off(r.topk_table, 1), off(r.topk_table, 4)}), 0.0);
}
