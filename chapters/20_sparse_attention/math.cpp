#include "chapters/20_sparse_attention/math.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/copy_model/score_indexer.hpp"
#include "common/numbers/threads.hpp"

namespace {

// One query q (row i of Q) over the keys `kept` (rows of K and V): the weights of those keys
// and the output. `sink` is a logit with no value (−∞: none).
//   1. s_j = q · k_j / √d_h and their maximum m (for exp's sake)
//   2. e_j = exp(s_j − m), and Z = exp(σ − m) + Σ_j e_j
//   3. a_j = e_j / Z,  out = Σ_j a_j v_j
struct Read {
    std::vector<float> weights;  // (|kept|)
    std::vector<float> output;   // (d_v)
    float sink_share = 0.0f;
};
Read read_keys(const Matrix& Q, std::size_t i, const Matrix& K, const Matrix& V, const std::vector<std::size_t>& kept,
               float sink = -INFINITY) {
    const std::size_t d = cols(Q), dv = cols(V);
    Read r{std::vector<float>(kept.size()), std::vector<float>(dv, 0.0f), 0.0f};
    float largest = sink;
    for (std::size_t a = 0; a < kept.size(); ++a) {  // 1. scores
        float s = 0.0f;
        for (std::size_t c = 0; c < d; ++c) s += Q(i, c) * K(kept[a], c);
        largest = std::max(largest, r.weights[a] = s / std::sqrt(float(d)));
    }
    if (kept.empty() && std::isinf(largest)) return r;
    float Z = std::exp(sink - largest);  // 2. the denominator: the sink's term first (0 without one)
    for (float& w : r.weights) Z += (w = std::exp(w - largest));
    for (std::size_t a = 0; a < kept.size(); ++a) {  // 3. normalise, and the weighted sum of values
        r.weights[a] /= Z;
        for (std::size_t c = 0; c < dv; ++c) r.output[c] += r.weights[a] * V(kept[a], c);
    }
    r.sink_share = std::exp(sink - largest) / Z;
    return r;
}

void write_row(Matrix& m, std::size_t i, const std::vector<float>& row) {
    for (std::size_t c = 0; c < row.size(); ++c) m(i, c) = row[c];
}

}  // namespace

RollingDecoding decode_rolling(const Matrix& Q, const Matrix& K, const Matrix& V, std::size_t w, std::size_t s) {
    const std::size_t n = rows(Q);
    RollingDecoding r{w, s, xt::zeros<float>({n, n}), xt::zeros<float>({n, cols(V)}), Matrix({n, s + w})};
    std::vector<long> slot_holds(s + w, -1);  // the position in each slot; −1 empty
    for (std::size_t t = 0; t < n; ++t) {
        // 1. token t's key and value go to its slot: a sink slot if t < s, else slot t mod w of the
        //    rolling part, over token t − w (which no query from t on reads)
        const std::size_t slot = t < s ? t : s + t % w;  // the sinks: slots 0 … s − 1, never overwritten
        slot_holds[slot] = long(t);
        // 2. one query over every filled slot: no mask, the buffer holds only what token t reads
        std::vector<std::size_t> kept;
        for (long j : slot_holds)
            if (j >= 0) kept.push_back(std::size_t(j));
        const Read read = read_keys(Q, t, K, V, kept);
        // 3. the weights by position, for the picture and the checks: slot a holds position kept[a]
        for (std::size_t a = 0; a < kept.size(); ++a) r.weights(t, kept[a]) = read.weights[a];
        write_row(r.output, t, read.output);
        for (std::size_t a = 0; a < s + w; ++a) r.slots(t, a) = float(slot_holds[a]);
    }
    return r;
}

TopK topk_attention(const Matrix& Q, const Matrix& K, const Matrix& V, const Matrix& index, std::size_t k) {
    const std::size_t n = rows(Q);
    TopK r{Matrix({n, k}), xt::zeros<float>({n, n}), xt::zeros<float>({n, cols(V)})};
    r.index.fill(-1.0f);
    for (std::size_t i = 0; i < n; ++i) {
        // 1. the candidates: the keys j ≤ i (a query reads no later token)
        // ┌ exercise topk-select
        std::vector<std::size_t> kept(i + 1);
        std::iota(kept.begin(), kept.end(), std::size_t{0});
        // 2. the k of highest index score (on a tie, the earlier position), highest first
        const std::size_t keep = std::min(k, kept.size());
        std::partial_sort(kept.begin(), kept.begin() + long(keep), kept.end(), [&](std::size_t a, std::size_t b) {
            return index(i, a) > index(i, b) || (index(i, a) == index(i, b) && a < b);
        });
        kept.resize(keep);
        // └ stub: std::vector<std::size_t> kept = {i};
        // 3. softmax over those keys only
        const Read read = read_keys(Q, i, K, V, kept);
        for (std::size_t a = 0; a < kept.size(); ++a) {
            r.index(i, a) = float(kept[a]);
            r.weights(i, kept[a]) = read.weights[a];
        }
        write_row(r.output, i, read.output);
    }
    return r;
}

SinkAttention attention_with_sink(const Matrix& Q, const Matrix& K, const Matrix& V, float sink_logit) {
    const std::size_t n = rows(Q);
    SinkAttention r{xt::zeros<float>({n, n}), Matrix({n, 1}), xt::zeros<float>({n, cols(V)})};
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<std::size_t> causal(i + 1);  // keys 0 … i
        std::iota(causal.begin(), causal.end(), std::size_t{0});
        const Read read = read_keys(Q, i, K, V, causal, sink_logit);
        write_row(r.output, i, read.output);
        for (std::size_t j = 0; j <= i; ++j) r.weights(i, j) = read.weights[j];
        r.sink_share(i, 0) = read.sink_share;
    }
    return r;
}

Matrix first_half_shares(const ModelForward<float>& f, std::size_t half) {
    const std::size_t H = f.weights.size(), n = f.length;
    Matrix shares = xt::zeros<float>({H, std::size_t{3}});
    for (std::size_t k = 0; k < H; ++k) {
        double first = 0, current = 0, total = 0;  // summed over sequences and queries 1 … L − 1
        for (std::size_t b = 0; b < f.batch; ++b)
            for (std::size_t i = 1; i < half; ++i) {
                const std::size_t row = b * n + i;
                first += f.weights[k](row, 0), current += f.weights[k](row, i);
                for (std::size_t j = 0; j <= i; ++j) total += f.weights[k](row, j);
            }
        const double count = double(f.batch * (half - 1));
        shares(k, 0) = float(first / count), shares(k, 1) = float(current / count);
        shares(k, 2) = float(1.0 - total / count);
    }
    return shares;
}

double uniform_share(std::size_t half) {
    double sum = 0;
    for (std::size_t i = 1; i < half; ++i) sum += 1.0 / double(i + 1);
    return sum / double(half - 1);
}

TopKFlops topk_flops(std::size_t n, std::size_t d, std::size_t d_h, std::size_t r, std::size_t k) {
    return {4.0 * double(d * r) + 2.0 * double(n * r), 4.0 * double(std::min(k, n) * d_h), 4.0 * double(n * d_h)};
}

namespace {

// The last layer's head with the most weight on i − L + 1 in the second half: the one that copies.
std::size_t copying_head(const AttentionOnlyModel<float>& m, const ModelForward<float>& f, std::size_t half) {
    std::size_t best = (m.layers - 1) * m.heads;
    double best_score = -1;
    for (std::size_t k = best; k < m.layers * m.heads; ++k) {
        double score = 0;
        for (std::size_t b = 0; b < f.batch; ++b)
            for (std::size_t i = half; i < f.length; ++i) score += f.weights[k](b * f.length + i, i - half + 1);
        if (score > best_score) best = k, best_score = score;
    }
    return best;
}

// The model's weights read with another choice of keys (the indexer, when top_k > 0, must be set).
AttentionOnlyModel<float> reading(AttentionOnlyModel<float> m, std::size_t window, std::size_t sinks,
                                  std::size_t top_k) {
    m.variant.window = window, m.variant.sinks = sinks, m.variant.top_k = top_k;
    return m;
}

// `indexed`: the trained model with its indexer set and top_k = the chosen k.
OneHead one_head(const AttentionOnlyModel<float>& indexed, const Tokens& tokens, std::size_t head, const Variant& v) {
    OneHead r;
    const ModelForward<float> f = model_forward(indexed, {tokens});
    const std::size_t n = tokens.size();
    r.head = head, r.X_layer = f.X[head / indexed.heads];
    r.W_IQ = indexed.W_IQ[head], r.W_IK = indexed.W_IK[head], r.index_scores = f.index_scores[head];
    r.Q = f.Q[head], r.K = f.K[head], r.V = f.V[head];
    const SinkAttention full = attention_with_sink(r.Q, r.K, r.V, -INFINITY);
    r.weights_full = full.weights, r.output_full = full.output;
    r.window_sinks = decode_rolling(r.Q, r.K, r.V, v.window, v.sinks);
    r.all_sinks = decode_rolling(r.Q, r.K, r.V, v.window, n - std::min(v.window, n));
    r.topk = topk_attention(r.Q, r.K, r.V, r.index_scores, v.top_k);
    r.topk_all = topk_attention(r.Q, r.K, r.V, r.index_scores, n);
    r.output_window_sinks = r.window_sinks.output, r.weights_window_sinks = r.window_sinks.weights;
    r.slots = r.window_sinks.slots;
    r.output_topk = r.topk.output, r.weights_topk = r.topk.weights, r.topk_index = r.topk.index;
    return r;
}

SinkHead sink_head(const AttentionOnlyModel<float>& m, const Tokens& tokens, std::size_t head) {
    SinkHead r;
    const ModelForward<float> f = model_forward(m, {tokens});
    r.head = head, r.sink_logit = m.sink[head];
    r.Q = f.Q[head], r.K = f.K[head], r.V = f.V[head];
    r.sink = attention_with_sink(r.Q, r.K, r.V, r.sink_logit(0, 0));
    r.sink_weights = r.sink.weights, r.sink_share = r.sink.sink_share;
    return r;
}

// Accuracy and loss of the second half as the window shrinks (with no sinks, and with s), and as
// k falls (the shown head's largest output error beside them).
void sweeps(ReadModel& r, const AttentionOnlyModel<float>& indexed) {
    const std::size_t L = r.settings.half_length;
    const std::size_t d = r.settings.d_model, d_h = d / r.settings.heads;
    AttentionOnlyModel<float> exact = indexed;  // an indexer of rank d_h: the heads' own ranking
    set_indexer_from_heads(exact, d_h);
    // each reading of a model: the second half's accuracy and loss into (row, column), (row, column + 1)
    struct Reading {
        AttentionOnlyModel<float> model;
        Matrix* table;
        std::size_t row, column;
    };
    std::vector<Reading> readings;
    r.window_table = Matrix({swept_windows.size(), std::size_t{5}});
    for (std::size_t a = 0; a < swept_windows.size(); ++a) {
        r.window_table(a, 0) = float(swept_windows[a]);
        readings.push_back({reading(r.trained, swept_windows[a], 0, 0), &r.window_table, a, 1});
        readings.push_back({reading(r.trained, swept_windows[a], r.chosen.sinks, 0), &r.window_table, a, 3});
    }
    r.topk_table = Matrix({swept_top_k.size(), std::size_t{6}});
    for (std::size_t a = 0; a < swept_top_k.size(); ++a) {
        const std::size_t k = swept_top_k[a];
        r.topk_table(a, 0) = float(k);
        readings.push_back({reading(indexed, 0, 0, k), &r.topk_table, a, 1});
        const TopK t = topk_attention(r.one.Q, r.one.K, r.one.V, r.one.index_scores, k);
        r.topk_table(a, 3) = xt::amax(xt::abs(t.output - r.one.output_full))();
        readings.push_back({reading(exact, 0, 0, k), &r.topk_table, a, 4});
    }
    // the readings side by side, one a thread (threads.hpp): each one's numbers its thread's alone
    threads::split(readings.size(), [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            const Reading& g = readings[i];
            const Halves h = halves(model_forward(g.model, r.held_out), r.held_out, L);
            (*g.table)(g.row, g.column) = float(h.accuracy_second), (*g.table)(g.row, g.column + 1) = float(h.loss_second);
        }
    });
    r.flops_table = Matrix({flops_lengths.size(), std::size_t{4}});
    for (std::size_t a = 0; a < flops_lengths.size(); ++a) {
        const TopKFlops f = topk_flops(flops_lengths[a], d, d_h, r.chosen.indexer_rank, r.chosen.top_k);
        r.flops_table(a, 0) = float(flops_lengths[a]);
        r.flops_table(a, 1) = float(f.indexer), r.flops_table(a, 2) = float(f.attention), r.flops_table(a, 3) = float(f.full);
    }
}

}  // namespace

MatrixList OneHead::matrices() const {
    return {{"X_layer", X_layer, "the residual stream the head reads", "tokens", ""},
            {"W_IQ", W_IQ, "U_r Σ_r^½ of W_Q W_Kᵀ", "", ""},
            {"W_IK", W_IK, "V_r Σ_r^½", "", ""},
            {"Q", Q, "X_layer · W_Q (one head)", "tokens", ""},
            {"K", K, "X_layer · W_K", "tokens", ""},
            {"V", V, "X_layer · W_V", "tokens", ""},
            {"index_scores", index_scores, "(X W_IQ)(X W_IK)ᵀ, j ≤ i", "tokens", "tokens", MatrixKind::scores},
            {"weights_full", weights_full, "causal softmax(q·k/√d_h)", "tokens", "tokens",
             MatrixKind::attention_weights},
            {"output_full", output_full, "weights_full · V", "tokens", ""},
            {"weights_window_sinks", weights_window_sinks, "the rolling buffer's, by position", "tokens", "tokens",
             MatrixKind::attention_weights},
            {"output_window_sinks", output_window_sinks, "the rolling buffer's", "tokens", ""},
            {"slots", slots, "the position each slot holds after step t", "positions", "slots", MatrixKind::indices},
            {"topk_index", topk_index, "the k keys kept (−1: none)", "positions", "", MatrixKind::indices},
            {"weights_topk", weights_topk, "softmax over the kept keys", "tokens", "tokens",
             MatrixKind::attention_weights},
            {"output_topk", output_topk, "weights_topk · V", "tokens", ""}};
}

MatrixList ReadModel::matrices() const {
    MatrixList list = {{"tokens", tokens, "held-out sequence 0"}};
    for (const ListedMatrix& m : one.matrices()) list.push_back(m);
    list.push_back({"shares", shares, "queries 1 … L−1: on position 0, on itself, missing", "heads", "shares"});
    list.push_back({"window_table", window_table, "held out, second half", "", "window_columns"});
    list.push_back({"topk_table", topk_table, "held out, second half", "", "topk_columns"});
    list.push_back({"flops_table", flops_table, "per decoded token and head", "", "flops_columns"});
    return list;
}

MatrixList SinkModel::matrices() const {
    return {{"sink_Q", head.Q, "the sink model's head", "tokens", ""},
            {"sink_K", head.K, "", "tokens", ""},
            {"sink_V", head.V, "", "tokens", ""},
            {"sink_logit", head.sink_logit, "σ_h"},
            {"sink_weights", head.sink_weights, "e^{s_ij} / (e^σ + Σ_j' e^{s_ij'})", "tokens", "tokens"},
            {"sink_share", head.sink_share, "e^σ / (e^σ + Σ_j' e^{s_ij'})", "tokens", ""},
            {"sink_shares", shares, "the same, with a sink logit", "heads", "shares"},
            {"sink_logits", logits, "σ_h", "heads", ""}};
}

MatrixList VariantsSideBySide::matrices() const {
    return {{"variants", variants, "per layer at DeepSeek-V3's shape; copy-task accuracy", "variants",
             "variant_columns"}};
}

namespace {

// The table's window, sinks, top-k and indexer: the chosen ones.
CopyScale scale_of(const Variant& chosen) {
    CopyScale scale;
    scale.window = chosen.window, scale.sinks = chosen.sinks, scale.top_k = chosen.top_k;
    scale.indexer_rank = chosen.indexer_rank;
    return scale;
}

}  // namespace

ReadModel read_model(const CopyTaskSettings& s, const Variant& chosen, const RowProgress& progress) {
    ReadModel r;
    r.settings = s, r.chosen = chosen;
    r.held_out = held_out_sequences(s);
    // 1. the table's rows that read the MHA model: MHA itself (trained), the window + sinks and top-k;
    //    on two threads or more the sink model (sink_model reads it) trains beside MHA's, at no wait
    std::vector<std::string> rows = {"MHA", "window + sinks", "top-k"};
    if (threads::count() > 1) rows.push_back("sink logit");
    const std::vector<VariantRun> runs = variant_runs(s, scale_of(chosen), progress, rows);
    r.trained = run_named(runs, "MHA").model, r.after = run_named(runs, "MHA").held_out;
    r.windowed = run_named(runs, "window + sinks").held_out;
    r.indexed = run_named(runs, "top-k").held_out;
    const AttentionOnlyModel<float>& indexed = run_named(runs, "top-k").model;  // its indexer set, top_k = k
    // 2. where its heads put their weight, and the copying head read with the chosen window and top-k
    const ModelForward<float>& f = r.plain_forward = model_forward(r.trained, r.held_out);
    r.shares = first_half_shares(f, s.half_length);
    r.one = one_head(indexed, r.held_out[0], copying_head(r.trained, f, s.half_length), chosen);
    r.tokens = token_row(r.held_out[0]);
    // 3. the sweeps
    sweeps(r, indexed);
    return r;
}

SinkModel sink_model(const CopyTaskSettings& s, const Variant& chosen, const RowProgress& progress) {
    SinkModel r;
    const std::vector<VariantRun> runs = variant_runs(s, scale_of(chosen), progress, {"sink logit"});
    const VariantRun& run = run_named(runs, "sink logit");
    r.trained = run.model, r.after = run.held_out;
    const std::vector<Tokens> held_out = held_out_sequences(s);
    const ModelForward<float>& g = r.forward = model_forward(r.trained, held_out);
    r.shares = first_half_shares(g, s.half_length);
    const std::size_t H = s.layers * s.heads;
    r.logits = Matrix({H, std::size_t{1}});
    for (std::size_t k = 0; k < H; ++k) r.logits(k, 0) = r.trained.sink[k](0, 0);
    r.head = sink_head(r.trained, held_out[0], copying_head(r.trained, g, s.half_length));
    return r;
}

VariantsSideBySide variants_side_by_side(const CopyTaskSettings& s, const Variant& chosen,
                                         const RowProgress& progress) {
    VariantsSideBySide r;
    r.runs = variant_runs(s, scale_of(chosen), progress);  // MHA's and the sink's read back when trained before
    r.table = variant_table(r.runs);
    r.variants = Matrix({r.table.size(), std::size_t{7}});
    for (std::size_t a = 0; a < r.table.size(); ++a) {
        const VariantRow& v = r.table[a];
        const std::uint64_t numbers[] = {v.kept_short, v.kept_long, v.bytes_short, v.bytes_long, v.flops_short,
                                         v.flops_long};
        for (std::size_t c = 0; c < 6; ++c) r.variants(a, c) = float(numbers[c]);
        r.variants(a, 6) = float(v.accuracy);
    }
    return r;
}
