#include "chapters/23_inside_the_model/math.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <xtensor/xview.hpp>

#include "common/gpt/gpt_copying.hpp"
#include "common/gpt/gpt_layers.hpp"
#include "common/learning/cross_entropy.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/random.hpp"

namespace {

constexpr std::size_t windows_per_pass = 32;  // held-out windows through the model at once

Matrix zeros(std::size_t n, std::size_t m) { return Matrix(xt::zeros<float>({n, m})); }

std::size_t argmax(const float* row, std::size_t V) { return std::size_t(std::max_element(row, row + V) - row); }

// The windows of (T + 1) tokens in rows as model inputs (their first T) and targets (their last T).
void split_windows(const Matrix& windows, std::size_t first, std::size_t count, std::vector<Tokens>& inputs,
                   std::vector<Tokens>& targets) {
    const std::size_t T = cols(windows) - 1;
    inputs.assign(count, Tokens(T)), targets.assign(count, Tokens(T));
    for (std::size_t b = 0; b < count; ++b)
        for (std::size_t i = 0; i < T; ++i) {
            inputs[b][i] = std::size_t(windows(first + b, i));
            targets[b][i] = std::size_t(windows(first + b, i + 1));
        }
}

// The mean held-out loss over the windows with the heads replaced, and (when asked) by position.
double loss_with(const Gpt<float>& model, const Matrix& windows, const std::vector<HeadReplacement<float>>& replaced,
                 Matrix* by_position = nullptr) {
    const std::size_t W = rows(windows), T = cols(windows) - 1;
    std::vector<Tokens> inputs, targets;
    double total = 0.0;
    if (by_position) *by_position = zeros(1, T);
    std::vector<double> position(T, 0.0);
    for (std::size_t first = 0; first < W; first += windows_per_pass) {
        const std::size_t count = std::min(windows_per_pass, W - first);
        split_windows(windows, first, count, inputs, targets);
        // each replacement is one row (removed, or a mean): the same for every window of the pass
        const std::vector<double> losses = token_losses(gpt_forward(model, inputs, replaced).logits, targets);
        for (std::size_t r = 0; r < losses.size(); ++r) total += losses[r], position[r % T] += losses[r];
    }
    if (by_position)
        for (std::size_t i = 0; i < T; ++i) (*by_position)(0, i) = float(position[i] / double(W));
    return total / double(W * T);
}

// Head k = l·H + h removed: z_h ← 0 at every token.
HeadReplacement<float> removed(std::size_t k, std::size_t heads, std::size_t dh) {
    // ┌ exercise remove-head
    return {k / heads, k % heads, zeros(1, dh)};
    // └ stub: (void)k, (void)heads, (void)dh; return {};
}

// A matrix's rows as token sequences, and back.
std::vector<Tokens> rows_as_tokens(const Matrix& m, std::size_t length) {
    std::vector<Tokens> out(rows(m), Tokens(length));
    for (std::size_t b = 0; b < rows(m); ++b)
        for (std::size_t i = 0; i < length; ++i) out[b][i] = std::size_t(m(b, i));
    return out;
}

Matrix as_matrix(const std::vector<Tokens>& sequences) {
    Matrix m = zeros(sequences.size(), sequences.at(0).size());
    for (std::size_t b = 0; b < sequences.size(); ++b)
        for (std::size_t i = 0; i < cols(m); ++i) m(b, i) = float(sequences[b][i]);
    return m;
}

}  // namespace

std::string role_name(HeadRole role) {
    switch (role) {
        case HeadRole::previous_token: return "previous token";
        case HeadRole::self: return "itself";
        case HeadRole::first_token: return "first token (sink)";
        case HeadRole::induction: return "induction";
        case HeadRole::spread: return "spread out";
    }
    return "";
}

std::vector<double> token_losses(const Matrix& logits, const std::vector<Tokens>& targets) {
    const std::size_t n = targets.empty() ? 0 : targets[0].size();
    std::vector<double> losses(rows(logits));
    for (std::size_t r = 0; r < rows(logits); ++r) losses[r] = token_loss(logits, r, targets[r / n][r % n]);
    return losses;
}

double in_context_score(const Matrix& loss_by_position) {
    const std::size_t T = cols(loss_by_position);
    const std::size_t early_from = std::max<std::size_t>(1, T / 16), early_to = std::max(early_from + 1, T / 8);
    const std::size_t late = std::max<std::size_t>(1, T / 8);
    double early_sum = 0.0, late_sum = 0.0;
    for (std::size_t i = early_from; i < early_to; ++i) early_sum += loss_by_position(0, i);
    for (std::size_t i = T - late; i < T; ++i) late_sum += loss_by_position(0, i);
    return late_sum / double(late) - early_sum / double(early_to - early_from);
}

std::size_t highest_head(const Matrix& table, std::size_t layer) {
    std::size_t best = 0;
    for (std::size_t h = 1; h < cols(table); ++h)
        if (table(layer, h) > table(layer, best)) best = h;
    return best;
}

Matrix lens_logits(const Gpt<float>& model, const Matrix& x) {
    Matrix normed, stats, logits;
    // ┌ exercise logit-lens
    gpt_layers::layer_norm(x, model.ln_f_weight, model.ln_f_bias, normed, stats);  // (N × d)
    gpt_layers::linear(normed, model.wte, zeros(1, model.config.vocab), logits);     // (N × V): · wteᵀ
    // └ stub: logits = zeros(rows(x), model.config.vocab);
    return logits;
}

HeadScores score_heads(const Gpt<float>& model, const Tokens& held_out, const Probe& probe) {
    const GptConfig& c = model.config;
    const std::size_t T = c.context, L = c.layers, H = c.heads, dh = c.d_model / H;
    HeadScores s;
    s.layers = L, s.heads = H;
    // 1. The windows: W of the (held-out − 1) / T, window w starting at T·⌊w·all/W⌋ (as chapter
    //    22's held-out loss picks them).
    const std::size_t all = (held_out.size() - 1) / T;
    if (all == 0) throw InputError(describe("held-out text of ", held_out.size(), " tokens: less than one window of ", T + 1));
    const std::size_t W = std::min(all, probe.windows);
    s.held_out_windows = zeros(W, T + 1);
    for (std::size_t w = 0; w < W; ++w)
        for (std::size_t i = 0; i <= T; ++i) s.held_out_windows(w, i) = float(held_out[w * all / W * T + i]);
    // 2. Through the model, 32 windows at a time: the loss at each position and each depth of the
    //    lens, each head's shares on queries i ≥ 2, its largest weight of each kind, its mean output.
    s.previous_token = zeros(L, H), s.self = zeros(L, H), s.first_token = zeros(L, H), s.induction = zeros(L, H);
    s.loss_by_position = zeros(1, T), s.lens_loss = zeros(1, L + 1), s.mean_outputs = zeros(L * H, dh);
    struct Best { double weight = -1.0; std::size_t window = 0, query = 0, key = 0; };
    std::vector<std::array<Best, 4>> best(L * H);  // per head, per role (induction: on the text)
    std::vector<double> shares(3 * L * H, 0.0), means(L * H * dh, 0.0), position(T, 0.0), lens(L + 1, 0.0);
    double total = 0.0;
    std::vector<Tokens> inputs, targets;
    for (std::size_t first = 0; first < W; first += windows_per_pass) {
        const std::size_t count = std::min(windows_per_pass, W - first);
        split_windows(s.held_out_windows, first, count, inputs, targets);
        const GptForward<float> f = gpt_forward(model, inputs);
        const std::vector<double> losses = token_losses(f.logits, targets);
        for (std::size_t r = 0; r < losses.size(); ++r) total += losses[r], position[r % T] += losses[r];
        for (std::size_t depth = 0; depth <= L; ++depth) {
            const Matrix& x = depth < L ? f.blocks[depth].x : f.x_final;  // x_depth: after `depth` blocks
            for (double loss : token_losses(lens_logits(model, x), targets)) lens[depth] += loss;
        }
        for (std::size_t k = 0; k < L * H; ++k) {
            const Matrix& A = f.blocks[k / H].weights[k % H];  // (count·T × T)
            const Matrix& z = f.blocks[k / H].heads;           // (count·T × d), head h: columns h·d_h …
            for (std::size_t b = 0; b < count; ++b) {
                const Tokens& ids = inputs[b];
                for (std::size_t i = 0; i < T; ++i) {
                    const std::size_t r = b * T + i;
                    for (std::size_t col = 0; col < dh; ++col) means[k * dh + col] += z(r, (k % H) * dh + col);
                    if (i < 2) continue;
                    // ┌ exercise share-keys
                    const std::array<std::size_t, 3> keys{i - 1, i, 0};
                    // └ stub: const std::array<std::size_t, 3> keys{0, 0, 0};
                    for (std::size_t role = 0; role < 3; ++role) {
                        const double a = A(r, keys[role]);
                        shares[3 * k + role] += a;
                        if (a > best[k][role].weight) best[k][role] = {a, first + b, i, keys[role]};
                    }
                    // on text, induction: a key j whose previous token is the query's token, j − 1 < i − 1
                    for (std::size_t j = 1; j + 1 < i; ++j)
                        if (ids[j - 1] == ids[i] && A(r, j) > best[k][3].weight) best[k][3] = {A(r, j), first + b, i, j};
                }
            }
        }
    }
    s.held_out_loss = total / double(W * T);
    for (std::size_t i = 0; i < T; ++i) s.loss_by_position(0, i) = float(position[i] / double(W));
    for (std::size_t depth = 0; depth <= L; ++depth) s.lens_loss(0, depth) = float(lens[depth] / double(W * T));
    const double queries = double(W * (T - 2));
    for (std::size_t i = 2; i < T; ++i) s.uniform_share += 1.0 / double(i + 1) / double(T - 2);
    for (std::size_t k = 0; k < L * H; ++k) {
        s.previous_token(k / H, k % H) = float(shares[3 * k] / queries);
        s.self(k / H, k % H) = float(shares[3 * k + 1] / queries);
        s.first_token(k / H, k % H) = float(shares[3 * k + 2] / queries);
        for (std::size_t col = 0; col < dh; ++col) s.mean_outputs(k, col) = float(means[k * dh + col] / double(W * T));
    }
    // 3. The induction score on R random sequences of s = T/2 tokens, each repeated.
    const std::size_t half = T / 2;
    for (std::size_t i = half; i < 2 * half; ++i) s.uniform_induction += 1.0 / double(i + 1) / double(half);
    s.random_sequences = as_matrix(doubled(random_halves(c.vocab, probe.sequences, half, probe.seed)));
    const std::vector<Tokens> sequences = rows_as_tokens(s.random_sequences, 2 * half);
    std::vector<double> induction(L * H, 0.0);
    for (std::size_t first = 0; first < sequences.size(); first += windows_per_pass) {
        const std::size_t count = std::min(windows_per_pass, sequences.size() - first);
        const std::vector<Tokens> batch(sequences.begin() + std::ptrdiff_t(first),
                                        sequences.begin() + std::ptrdiff_t(first + count));
        const GptForward<float> f = gpt_forward(model, batch);
        for (std::size_t k = 0; k < L * H; ++k)
            for (std::size_t b = 0; b < count; ++b)
                for (std::size_t i = half; i < 2 * half; ++i)
                    induction[k] += f.blocks[k / H].weights[k % H](b * 2 * half + i, i - half + 1);
    }
    // 4. Each head's role: the largest of its four numbers, if it reaches role_share.
    s.roles = zeros(L, H), s.examples = zeros(L * H, 3), s.example_weights = zeros(L * H, 1);
    for (std::size_t k = 0; k < L * H; ++k) {
        const std::size_t l = k / H, h = k % H;
        s.induction(l, h) = float(induction[k] / double(sequences.size() * half));
        const std::array<float, 4> score{s.previous_token(l, h), s.self(l, h), s.first_token(l, h), s.induction(l, h)};
        const std::size_t role = std::size_t(std::max_element(score.begin(), score.end()) - score.begin());
        s.roles(l, h) = float(score[role] >= role_share ? role : std::size_t(HeadRole::spread));
        const Best& b = best[k][role];
        s.examples(k, 0) = float(b.window), s.examples(k, 1) = float(b.query), s.examples(k, 2) = float(b.key);
        s.example_weights(k, 0) = float(b.weight);
    }
    return s;
}

Removals remove_heads(const Gpt<float>& model, const HeadScores& s, const Probe& probe, const Tokens& held_out) {
    const GptConfig& c = model.config;
    const std::size_t L = c.layers, H = c.heads, dh = c.d_model / H, T = c.context;
    Removals r;
    // 1. One head at a time: removed (z_h ← 0) and replaced by its mean (z_h ← z̄_h).
    r.increase_removed = zeros(L, H), r.increase_mean = zeros(L, H);
    for (std::size_t k = 0; k < L * H; ++k) {
        const Matrix mean = xt::view(s.mean_outputs, xt::range(k, k + 1), xt::all());
        // ┌ exercise loss-without-head
        r.increase_removed(k / H, k % H) = float(loss_with(model, s.held_out_windows, {removed(k, H, dh)}) - s.held_out_loss);
        r.increase_mean(k / H, k % H) =
            float(loss_with(model, s.held_out_windows, {{k / H, k % H, mean}}) - s.held_out_loss);
        // └ stub: (void)mean;
    }
    // 2. The induction heads (score ≥ role_share; when none reaches it, the one of the highest
    //    score), and as many others: of the same blocks first, each from the lowest score.
    std::vector<std::size_t> order(L * H);
    for (std::size_t k = 0; k < L * H; ++k) order[k] = k;
    const auto score = [&](std::size_t k) { return s.induction(k / H, k % H); };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return score(a) > score(b); });
    r.induction_found = score(order[0]) >= role_share;
    for (std::size_t k : order)
        if (score(k) >= role_share || r.induction_heads.empty()) r.induction_heads.push_back(k);
    std::vector<std::size_t> rest(order.rbegin(), order.rend() - std::ptrdiff_t(r.induction_heads.size()));
    std::stable_partition(rest.begin(), rest.end(), [&](std::size_t k) {
        return std::any_of(r.induction_heads.begin(), r.induction_heads.end(), [&](std::size_t i) { return i / H == k / H; });
    });
    // (fewer when the model has fewer other heads: none at all with one block of one head)
    const std::size_t others = std::min(rest.size(), r.induction_heads.size());
    r.other_heads.assign(rest.begin(), rest.begin() + std::ptrdiff_t(others));
    const auto without = [&](const std::vector<std::size_t>& heads) {
        std::vector<HeadReplacement<float>> replaced;
        for (std::size_t k : heads) replaced.push_back(removed(k, H, dh));
        return replaced;
    };
    // 3. Olsson et al.'s test: held-out passages of s = T/2 tokens, each repeated.
    const std::vector<Tokens> passages = doubled(held_out_halves(held_out, probe.passages, T / 2));
    r.repeated_passages = as_matrix(passages);
    r.repeated_losses = zeros(3, 2);
    const std::array<std::vector<HeadReplacement<float>>, 3> cases{std::vector<HeadReplacement<float>>{},
                                                                    without(r.induction_heads), without(r.other_heads)};
    for (std::size_t row = 0; row < 3; ++row) {
        const std::array<double, 2> l = copy_losses(model, passages, cases[row]);
        r.repeated_losses(row, 0) = float(l[0]), r.repeated_losses(row, 1) = float(l[1]);
    }
    // 4. The loss by position without the induction heads, and both in-context scores.
    loss_with(model, s.held_out_windows, cases[1], &r.loss_by_position_without);
    r.in_context_scores = zeros(1, 2);
    r.in_context_scores(0, 0) = float(in_context_score(s.loss_by_position));
    r.in_context_scores(0, 1) = float(in_context_score(r.loss_by_position_without));
    return r;
}

HeadReplacement<float> patch_of(const GptForward<float>& from, const GptForward<float>& into, std::size_t layer,
                                std::size_t head, std::size_t position) {
    const Matrix& source = from.blocks[layer].heads;  // (n × d): the clean run's [z_0 … z_{H−1}]
    const Matrix& target = into.blocks[layer].heads;  // the corrupt run's
    const std::size_t n = rows(target), dh = cols(target) / into.blocks[layer].q.size();
    Matrix rows_of_head = zeros(n, dh);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t col = 0; col < dh; ++col) {
            const bool patched = position == every_position || i == position;
            rows_of_head(i, col) = (patched ? source : target)(i, head * dh + col);
        }
    return {layer, head, rows_of_head};
}

Patching patch_heads(const Gpt<float>& model, const Tokens& clean, const Tokens& corrupt) {
    const GptConfig& c = model.config;
    const std::size_t L = c.layers, H = c.heads, V = c.vocab, n = clean.size();
    if (corrupt.size() != n)
        throw InputError(describe("a corrupt sentence of ", corrupt.size(), " tokens and a clean one of ", n,
                                  " (patching copies a head's output token by token: the same length)"));
    Patching p;
    p.clean_ids = zeros(1, n), p.corrupt_ids = zeros(1, n);
    for (std::size_t i = 0; i < n; ++i) p.clean_ids(0, i) = float(clean[i]), p.corrupt_ids(0, i) = float(corrupt[i]);
    // 1. Both runs, and the token the clean one expects after its last token.
    const GptForward<float> fc = gpt_forward(model, {clean}), fr = gpt_forward(model, {corrupt});
    const float* last_clean = fc.logits.data() + (n - 1) * V;
    p.expected = argmax(last_clean, V);
    p.clean_logit = last_clean[p.expected];
    p.corrupt_logit = fr.logits((n - 1), p.expected);
    p.clean_logits = xt::view(fc.logits, xt::range(n - 1, n), xt::all());
    const double gap = p.clean_logit - p.corrupt_logit;
    // 2. Each head patched from the clean run into the corrupt one: at every position, then at one.
    const auto effect_of = [&](const std::vector<HeadReplacement<float>>& patches) {
        return double(gpt_forward(model, {corrupt}, patches).logits(n - 1, p.expected)) - p.corrupt_logit;
    };
    p.effect = zeros(L, H), p.restored = zeros(L, H), p.effect_by_position = zeros(L * H, n);
    std::vector<HeadReplacement<float>> every;
    for (std::size_t k = 0; k < L * H; ++k) {
        const std::size_t l = k / H, h = k % H;
        every.push_back(patch_of(fc, fr, l, h, every_position));
        p.effect(l, h) = float(effect_of({every.back()}));
        p.restored(l, h) = std::abs(gap) > 1e-6 ? float(p.effect(l, h) / gap) : 0.0f;
        for (std::size_t i = 0; i < n; ++i) p.effect_by_position(k, i) = float(effect_of({patch_of(fc, fr, l, h, i)}));
    }
    // 3. Every head patched at once.
    p.all_patched_logits = xt::view(gpt_forward(model, {corrupt}, every).logits, xt::range(n - 1, n), xt::all());
    return p;
}

SentenceLens read_with_lens(const Gpt<float>& model, const Tokens& ids) {
    const GptConfig& c = model.config;
    const std::size_t L = c.layers, H = c.heads, V = c.vocab, n = ids.size();
    SentenceLens s;
    s.layers = L, s.heads = H;
    s.token_ids = zeros(1, n);
    for (std::size_t i = 0; i < n; ++i) s.token_ids(0, i) = float(ids[i]);
    const GptForward<float> f = gpt_forward(model, {ids});
    for (std::size_t k = 0; k < L * H; ++k) s.weights.push_back(f.blocks[k / H].weights[k % H]);
    s.logits = f.logits;
    s.top_ids = zeros(L + 1, n), s.top_probabilities = zeros(L + 1, n);
    for (std::size_t depth = 0; depth <= L; ++depth) {
        s.lens_logits.push_back(lens_logits(model, depth < L ? f.blocks[depth].x : f.x_final));
        for (std::size_t i = 0; i < n; ++i) {
            const float* row = s.lens_logits.back().data() + i * V;
            const std::size_t top = argmax(row, V);
            double total = 0.0;
            for (std::size_t v = 0; v < V; ++v) total += std::exp(double(row[v]) - double(row[top]));
            s.top_ids(depth, i) = float(top), s.top_probabilities(depth, i) = float(1.0 / total);
        }
    }
    return s;
}

// ---- 6. composition ----

namespace {

// a (n × k) · b (k × m), and aᵀ: the few small products of the composition scores.
Dense times(const Dense& a, const Dense& b) {
    Dense c(a.rows, b.cols);
    for (std::size_t i = 0; i < a.rows; ++i)
        for (std::size_t k = 0; k < a.cols; ++k)
            for (std::size_t j = 0; j < b.cols; ++j) c(i, j) += a(i, k) * b(k, j);
    return c;
}
Dense transposed(const Dense& a) {
    Dense t(a.cols, a.rows);
    for (std::size_t i = 0; i < a.rows; ++i)
        for (std::size_t j = 0; j < a.cols; ++j) t(j, i) = a(i, j);
    return t;
}

// ‖X C Z‖_F² from G_X = XᵀX, C and G_Z = Z Zᵀ: trace(Cᵀ G_X C G_Z) = Σ_ij (G_X C)_ij (C G_Z)_ij.
double squared_norm(const Dense& G_X, const Dense& C, const Dense& G_Z) {
    // ┌ exercise composition-norm
    const Dense left = times(G_X, C), right = times(C, G_Z);
    double total = 0.0;
    for (std::size_t e = 0; e < left.at.size(); ++e) total += left.at[e] * right.at[e];
    return total;
    // └ stub: (void)G_X, (void)C, (void)G_Z; return 0.0;
}

// The Gram matrices of one head's circuit (d_h × d_h each).
struct Grams {
    Dense Q, K, V, O;  // W_QᵀW_Q, W_KᵀW_K, W_VᵀW_V, W_O W_Oᵀ
};
Grams grams_of(const HeadCircuit& c) {
    return {times(transposed(c.W_Q), c.W_Q), times(transposed(c.W_K), c.W_K), times(transposed(c.W_V), c.W_V),
            times(c.W_O, transposed(c.W_O))};
}

std::array<double, 3> scores_of(const HeadCircuit& w, const Grams& gw, const HeadCircuit& r, const Grams& gr) {
    // ‖W_OV‖² = trace(G_V G_O), ‖W_QK‖² = trace(G_Q G_K): the same form with C = I
    Dense I(gw.V.rows, gw.V.rows);
    for (std::size_t i = 0; i < I.rows; ++i) I(i, i) = 1.0;
    const double ov_writer = std::sqrt(squared_norm(gw.V, I, gw.O)), qk_reader = std::sqrt(squared_norm(gr.Q, I, gr.K)),
                 ov_reader = std::sqrt(squared_norm(gr.V, I, gr.O));
    // X = W_V⁰ throughout; C = W_O⁰ · (W_Q¹, W_K¹ or W_V¹); Z = W_K¹ᵀ, W_Q¹ᵀ or W_O¹
    const double q = std::sqrt(squared_norm(gw.V, times(w.W_O, r.W_Q), gr.K)) / (ov_writer * qk_reader);
    const double k = std::sqrt(squared_norm(gw.V, times(w.W_O, r.W_K), gr.Q)) / (ov_writer * qk_reader);
    const double v = std::sqrt(squared_norm(gw.V, times(w.W_O, r.W_V), gr.O)) / (ov_writer * ov_reader);
    return {q, k, v};
}

}  // namespace

HeadCircuit head_circuit(const Gpt<float>& model, std::size_t layer, std::size_t head) {
    const GptBlock<float>& b = model.h[layer];
    const std::size_t d = model.config.d_model, dh = d / model.config.heads, c0 = head * dh;
    HeadCircuit c{Dense(d, dh), Dense(d, dh), Dense(d, dh), Dense(dh, d)};
    for (std::size_t row = 0; row < d; ++row)
        for (std::size_t i = 0; i < dh; ++i) {
            const double gamma = b.ln_1_weight(0, row);  // LayerNorm's γ, folded into what reads ln_1(x)
            c.W_Q(row, i) = gamma * b.c_attn_weight(c0 + i, row);
            c.W_K(row, i) = gamma * b.c_attn_weight(d + c0 + i, row);
            c.W_V(row, i) = gamma * b.c_attn_weight(2 * d + c0 + i, row);
            c.W_O(i, row) = b.attn_proj_weight(row, c0 + i);
        }
    return c;
}

std::array<double, 3> composition_of(const HeadCircuit& writer, const HeadCircuit& reader) {
    return scores_of(writer, grams_of(writer), reader, grams_of(reader));
}

Composition compose_heads(const Gpt<float>& model, std::size_t from, std::size_t samples, std::uint64_t seed) {
    const std::size_t H = model.config.heads, d = model.config.d_model, dh = d / H;
    Composition out{from, zeros(H, H), zeros(H, H), zeros(H, H), 0.0, samples, Matrix()};
    // 1. every head's circuit and Gram matrices, in both blocks
    std::vector<HeadCircuit> writers, readers;
    std::vector<Grams> writer_grams, reader_grams;
    for (std::size_t h = 0; h < H; ++h) {
        writers.push_back(head_circuit(model, from, h)), writer_grams.push_back(grams_of(writers.back()));
        readers.push_back(head_circuit(model, from + 1, h)), reader_grams.push_back(grams_of(readers.back()));
    }
    // 2. the (H × H) tables
    for (std::size_t w = 0; w < H; ++w)
        for (std::size_t r = 0; r < H; ++r) {
            const std::array<double, 3> s = scores_of(writers[w], writer_grams[w], readers[r], reader_grams[r]);
            out.q(w, r) = float(s[0]), out.k(w, r) = float(s[1]), out.v(w, r) = float(s[2]);
        }
    // 3. the baseline: Gaussian matrices of the same shapes, every score of every draw averaged
    Random rng(seed);
    const auto gaussian = [&rng](std::size_t n, std::size_t m) {
        Dense a(n, m);
        for (double& x : a.at) x = rng.normal();
        return a;
    };
    double total = 0.0;
    for (std::size_t s = 0; s < samples; ++s) {
        const HeadCircuit w{gaussian(d, dh), gaussian(d, dh), gaussian(d, dh), gaussian(dh, d)};
        const HeadCircuit r{gaussian(d, dh), gaussian(d, dh), gaussian(d, dh), gaussian(dh, d)};
        for (const double score : composition_of(w, r)) total += score;
    }
    out.baseline = samples > 0 ? total / double(3 * samples) : 0.0;
    return out;
}

Matrix induction_without_writers(const Gpt<float>& model, std::size_t from, const Matrix& random_sequences) {
    const std::size_t H = model.config.heads, dh = model.config.d_model / H;
    const std::vector<Tokens> sequences = rows_as_tokens(random_sequences, cols(random_sequences));
    Matrix out = zeros(H + 1, H);
    for (std::size_t w = 0; w <= H; ++w) {
        std::vector<HeadReplacement<float>> replaced;
        if (w < H) replaced.push_back(removed(from * H + w, H, dh));
        const std::vector<double> scores = induction_scores(model, sequences, replaced);
        for (std::size_t r = 0; r < H; ++r) out(w, r) = float(scores[(from + 1) * H + r]);
    }
    return out;
}

ShiftPatching patch_shifted(const Gpt<float>& model, const Matrix& random_sequences, std::size_t reader) {
    const std::size_t H = model.config.heads, dh = model.config.d_model / H, n = cols(random_sequences), s = n / 2;
    ShiftPatching p;
    p.reader = reader;
    // 1. The twins: the first copy rotated one position later, the second as it was.
    p.twin_sequences = random_sequences;
    for (std::size_t b = 0; b < rows(random_sequences); ++b) {
        // ┌ exercise shifted-twin
        for (std::size_t i = 0; i < s; ++i) p.twin_sequences(b, i) = random_sequences(b, (i + s - 1) % s);
        // └ stub: (void)b;
    }
    p.weights = zeros(H + 2, 2);
    if (s < 3 || model.config.layers < 2) return p;
    const std::vector<Tokens> sequences = rows_as_tokens(random_sequences, n), twins = rows_as_tokens(p.twin_sequences, n);
    std::vector<double> sums(2 * (H + 2), 0.0);
    for (std::size_t first = 0; first < sequences.size(); first += windows_per_pass) {
        const std::size_t count = std::min(windows_per_pass, sequences.size() - first);
        const auto batch = [&](const std::vector<Tokens>& all) {
            return std::vector<Tokens>(all.begin() + std::ptrdiff_t(first), all.begin() + std::ptrdiff_t(first + count));
        };
        // 2. The reader's weight on the two keys, summed over the queries i = s … 2s − 3.
        const auto add = [&](const GptForward<float>& f, std::size_t row) {
            const Matrix& A = f.blocks[1].weights[reader];  // (count·n × n)
            for (std::size_t b = 0; b < count; ++b)
                for (std::size_t i = s; i + 3 <= 2 * s; ++i)
                    sums[2 * row] += A(b * n + i, i - s + 1), sums[2 * row + 1] += A(b * n + i, i - s + 2);
        };
        const GptForward<float> clean = gpt_forward(model, batch(sequences)), twin = gpt_forward(model, batch(twins));
        add(clean, 0), add(twin, 1);
        // 3. Block-0 head w's output: the twin's at the first copy's positions, the sequence's after.
        for (std::size_t w = 0; w < H; ++w) {
            Matrix rows_of_head = zeros(count * n, dh);
            for (std::size_t r = 0; r < count * n; ++r)
                for (std::size_t col = 0; col < dh; ++col)
                    rows_of_head(r, col) = (r % n < s ? twin : clean).blocks[0].heads(r, w * dh + col);
            add(gpt_forward(model, batch(sequences), {{0, w, rows_of_head}}), 2 + w);
        }
    }
    for (std::size_t k = 0; k < sums.size(); ++k)
        p.weights(k / 2, k % 2) = float(sums[k] / double(sequences.size() * (s - 2)));
    return p;
}

MatrixList ShiftPatching::matrices() const {
    if (weights.size() == 0) return {};  // one block: not measured
    return {{"twin_sequences", twin_sequences, "each random sequence with its first copy one position later", "", ""},
            {"shift_patching", weights,
             "block 1's most inductive head's weight on keys i − s + 1 and i − s + 2: sequences, twins, one block-0 head patched",
             "shift_runs", "shift_keys"}};
}

MatrixList Composition::matrices() const {
    if (q.size() == 0) return {};  // one block: nothing composes
    return {{"q_composition", q, "‖W_OV⁰ W_QK¹‖ / (‖W_OV⁰‖ ‖W_QK¹‖): into the queries",
             "writing_heads", "reading_heads"},
            {"k_composition", k, "the same with W_QK¹ᵀ: into the keys", "writing_heads", "reading_heads"},
            {"v_composition", v, "the same with W_OV¹: into the values", "writing_heads", "reading_heads"},
            {"induction_without_writer", induction_without, "block-1 induction scores, a block-0 head removed",
             "removed_writers", "reading_heads"}};
}

MatrixList HeadScores::matrices() const {
    MatrixList list{
        {"held_out_windows", held_out_windows, "W windows of T + 1 held-out token ids", "", "", MatrixKind::indices},
        ListedMatrix("previous_token_score", previous_token, "mean A_h[i, i−1], held out", "layers", "heads")
            .opens_heads("layer_head_weights"),
        ListedMatrix("self_score", self, "mean A_h[i, i], held out", "layers", "heads").opens_heads("layer_head_weights"),
        ListedMatrix("first_token_score", first_token, "mean A_h[i, 0], held out", "layers", "heads")
            .opens_heads("layer_head_weights"),
        ListedMatrix("induction_score", induction, "mean A_h[i, i − s + 1], random tokens repeated", "layers", "heads")
            .opens_heads("layer_head_weights"),
        ListedMatrix("head_roles", roles, "0 previous, 1 itself, 2 first, 3 induction, 4 spread", "layers", "heads",
                     MatrixKind::indices)
            .opens_heads("layer_head_weights"),
        {"head_examples", examples, "window, query, key of each head's largest role weight", "layer_heads", "",
         MatrixKind::indices},
        {"head_example_weights", example_weights, "that weight", "layer_heads"},
        {"random_sequences", random_sequences, "R random sequences of s tokens, each twice", "", "", MatrixKind::indices},
        {"mean_outputs", mean_outputs, "z̄_h over every held-out token", "layer_heads"},
        ListedMatrix("loss_by_position", loss_by_position, "held-out loss at each position").as_vector(),
        ListedMatrix("lens_loss", lens_loss, "held-out loss of LN(x_l; ln_f) · wteᵀ", "", "depths").as_vector(),
    };
    return list;
}

MatrixList Removals::matrices() const {
    return {
        ListedMatrix("loss_increase_removed", increase_removed, "held-out loss with z_h ← 0, minus the model's", "layers",
                     "heads")
            .opens_heads("layer_head_weights"),
        ListedMatrix("loss_increase_mean", increase_mean, "held-out loss with z_h ← z̄_h, minus the model's", "layers",
                     "heads")
            .opens_heads("layer_head_weights"),
        {"repeated_passages", repeated_passages, "P held-out passages of s tokens, each twice", "", "", MatrixKind::indices},
        {"repeated_losses", repeated_losses, "rows: model, −the heads of highest induction score, −others; columns: first, second copy"},
        ListedMatrix("loss_by_position_without_induction", loss_by_position_without,
                     "held-out loss at each position, the heads of highest induction score removed")
            .as_vector(),
        ListedMatrix("in_context_scores", in_context_scores, "late − early loss: model, −the heads of highest induction score").as_vector(),
    };
}

MatrixList Patching::matrices() const {
    return {
        {"clean_ids", clean_ids, "the clean sentence's tokens", "", "", MatrixKind::indices},
        {"corrupt_ids", corrupt_ids, "the corrupt sentence's tokens", "", "", MatrixKind::indices},
        ListedMatrix("patch_effect", effect, "ℓ_e(z_h patched from clean) − ℓ_e(corrupt)", "layers", "heads")
            .opens_heads("layer_head_weights"),
        ListedMatrix("patch_restored", restored, "patch_effect / (ℓ_e(clean) − ℓ_e(corrupt))", "layers", "heads")
            .opens_heads("layer_head_weights"),
        {"patch_effect_by_position", effect_by_position, "the same, one position patched", "layer_heads",
         "patched_tokens"},
        ListedMatrix("all_patched_logits", all_patched_logits, "after the last token, every head patched").as_vector(),
        ListedMatrix("clean_last_logits", clean_logits, "after the last token, the clean run").as_vector(),
    };
}

MatrixList SentenceLens::matrices() const {
    MatrixList list{{"token_ids", token_ids, "your sentence's tokens", "", "tokens", MatrixKind::indices}};
    list_heads(list, weights, heads, "weights", "softmax_causal(q_h k_hᵀ / √d_h)", "tokens");
    list.push_back({"lens_top_ids", top_ids, "argmax of LN(x_l; ln_f) · wteᵀ", "depths", "tokens", MatrixKind::indices});
    list.push_back({"lens_top_probabilities", top_probabilities, "its probability", "depths", "tokens"});
    for (std::size_t depth = 0; depth < lens_logits.size(); ++depth)
        list.push_back({"lens_logits_" + std::to_string(depth), lens_logits[depth], "LN(x_l; ln_f) · wteᵀ", "tokens"});
    list.push_back({"logits", logits, "the model's logits", "tokens"});
    return list;
}
