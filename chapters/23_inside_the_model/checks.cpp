#include "chapters/23_inside_the_model/checks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>
#include <xtensor/xview.hpp>

#include "common/reference/attention_by_loops.hpp"
#include "common/gpt/gpt_copying.hpp"
#include "common/reference/gpt_by_loops.hpp"

namespace {

// max |a − b| over max(1, max |b|): logits compared relative to their size.
double relative_difference(const Matrix& a, const Mat<double>& b) {
    double error = 0.0, size = 1.0;
    for (std::size_t r = 0; r < rows(a); ++r)
        for (std::size_t c = 0; c < cols(a); ++c) {
            error = std::max(error, std::abs(double(a(r, c)) - b(r, c)));
            size = std::max(size, std::abs(b(r, c)));
        }
    return error / size;
}

Mat<double> in_double(const Matrix& m) { return xt::cast<double>(m); }

// −log softmax(logits row i)[targets i], averaged over the rows: the loss of one window in double.
double loss_by_loops(const Mat<double>& logits, const Tokens& targets) {
    double total = 0.0;
    for (std::size_t i = 0; i < targets.size(); ++i) {
        double top = logits(i, 0), sum = 0.0;
        for (std::size_t v = 0; v < cols(logits); ++v) top = std::max(top, logits(i, v));
        for (std::size_t v = 0; v < cols(logits); ++v) sum += std::exp(logits(i, v) - top);
        total += std::log(sum) + top - logits(i, targets[i]);
    }
    return total / double(targets.size());
}

// score_heads and remove_heads measure the first held-out window alone; the loops in double
// read the same numbers off their own weights and logits: the three shares (queries 2 … T−1),
// the induction score (on the random sequences that measurement drew), the loss read through
// the lens at each depth, and the loss with each head removed or replaced by its mean (the
// lesson's mean over every held-out token), whose logits are compared too.
void check_first_window(SelfChecks& check, const Gpt<float>& model, const HeadScores& s) {
    const std::size_t T = model.config.context, H = model.config.heads, dh = model.config.d_model / H;
    const std::size_t L = s.layers;
    Tokens text(T + 1);
    for (std::size_t i = 0; i <= T; ++i) text[i] = std::size_t(s.held_out_windows(0, i));
    const Tokens window(text.begin(), text.end() - 1), targets(text.begin() + 1, text.end());
    Probe probe;
    probe.windows = 1, probe.sequences = 2, probe.passages = 1;
    HeadScores one = score_heads(model, text, probe);
    one.mean_outputs = s.mean_outputs;
    const Removals removed = remove_heads(model, one, probe, text);
    const GptByLoops loops = gpt_by_loops(model, window);

    double shares = 0.0, induction = 0.0, lens = 0.0, logits = 0.0, losses = 0.0;
    for (std::size_t k = 0; k < L * H; ++k) {
        const Mat<double>& A = loops.weights[k];
        double previous = 0.0, self = 0.0, first = 0.0;
        for (std::size_t i = 2; i < T; ++i) previous += A(i, i - 1), self += A(i, i), first += A(i, 0);
        const double queries = double(T - 2);
        shares = std::max({shares, std::abs(one.previous_token(k / H, k % H) - previous / queries),
                           std::abs(one.self(k / H, k % H) - self / queries),
                           std::abs(one.first_token(k / H, k % H) - first / queries)});
    }
    const std::size_t half = cols(one.random_sequences) / 2;
    std::vector<double> scores(L * H, 0.0);
    for (std::size_t b = 0; b < rows(one.random_sequences); ++b) {
        Tokens sequence(2 * half);
        for (std::size_t i = 0; i < 2 * half; ++i) sequence[i] = std::size_t(one.random_sequences(b, i));
        const GptByLoops repeated = gpt_by_loops(model, sequence);
        for (std::size_t k = 0; k < L * H; ++k)
            for (std::size_t i = half; i < 2 * half; ++i) scores[k] += repeated.weights[k](i, i - half + 1);
    }
    for (std::size_t k = 0; k < L * H; ++k)
        induction = std::max(induction, std::abs(one.induction(k / H, k % H) -
                                                 scores[k] / double(rows(one.random_sequences) * half)));
    for (std::size_t depth = 0; depth <= L; ++depth)
        lens = std::max(lens, std::abs(one.lens_loss(0, depth) -
                                       loss_by_loops(output_layer_by_loops(model, loops.residual[depth]), targets)));
    const double loss = loss_by_loops(loops.logits, targets);
    for (std::size_t k = 0; k < L * H; ++k)
        for (const bool mean : {false, true}) {
            Mat<double> rows_ = Mat<double>::from_shape({1, dh});
            for (std::size_t c = 0; c < dh; ++c) rows_(0, c) = mean ? double(s.mean_outputs(k, c)) : 0.0;
            const HeadReplacement<float> fast{k / H, k % H, xt::cast<float>(rows_)};
            const GptByLoops without = gpt_by_loops(model, window, {{k / H, k % H, rows_}});
            logits = std::max(logits, relative_difference(gpt_forward(model, {window}, {fast}).logits, without.logits));
            const Matrix& increase = mean ? removed.increase_mean : removed.increase_removed;
            losses = std::max(losses, std::abs(increase(k / H, k % H) - (loss_by_loops(without.logits, targets) - loss)));
        }
    check.close("every head removed (z_h ← 0) or replaced by its mean = the loops in double doing the same "
                "(logits, relative)",
                logits, 1e-5);
    check.close("on the first held-out window alone, each head's previous-token, self and first-token shares = "
                "the loops' weights",
                shares, 1e-5);
    check.close("each head's induction score = the loops' weights on the repeated random tokens", induction, 1e-5);
    check.close("the held-out loss read after each block = the loops' (nats, first window)", lens, 1e-5);
    check.close("the loss without each head, removed and replaced by its mean, minus the model's = the loops' "
                "(nats, first window)",
                losses, 1e-5);
}

void check_patching(SelfChecks& check, const Gpt<float>& model, const Patching& p, const Tokens& clean,
                    const Tokens& corrupt) {
    const std::size_t n = clean.size(), H = model.config.heads;
    check.close("every head patched at once = the clean run, after the last token (logits, relative)",
                relative_difference(p.all_patched_logits, in_double(p.clean_logits)), 1e-5);
    // The head of the largest effect, patched by the loops in double.
    std::size_t best = 0;
    for (std::size_t k = 0; k < p.effect.size(); ++k)
        if (std::abs(p.effect.data()[k]) > std::abs(p.effect.data()[best])) best = k;
    const GptByLoops from = gpt_by_loops(model, clean), into = gpt_by_loops(model, corrupt);
    const GptByLoops patched = gpt_by_loops(model, corrupt, {{best / H, best % H, from.heads[best]}});
    const double effect = patched.logits(n - 1, p.expected) - into.logits(n - 1, p.expected);
    check.close(fmt::format("L{} H{}'s patch effect = the loops in double patching it ({:.3f})", best / H, best % H,
                            effect),
                std::abs(effect - double(p.effect.data()[best])) / std::max(1.0, std::abs(effect)), 1e-4);
}

void check_lens(SelfChecks& check, const Gpt<float>& model, const SentenceLens& s, const Tokens& sentence,
                const HeadScores& scores) {
    const std::size_t L = s.layers, H = s.heads;
    check.close("the lens after the last block = the model's logits (relative)",
                relative_difference(s.lens_logits[L], in_double(s.logits)), 1e-5);
    const GptByLoops loops = gpt_by_loops(model, sentence);
    double lens_error = 0.0, weights_error = 0.0;
    for (std::size_t depth = 0; depth <= L; ++depth)
        lens_error = std::max(lens_error, relative_difference(s.lens_logits[depth],
                                                              output_layer_by_loops(model, loops.residual[depth])));
    // each head's weights from its own q and k, by the reference's attention (common/reference)
    const GptForward<float> f = gpt_forward(model, {sentence});
    for (std::size_t k = 0; k < L * H; ++k) {
        const GptBlockForward<float>& b = f.blocks[k / H];
        const std::size_t h = k % H;
        const AttentionByLoops reference = attention_by_loops(b.q[h], b.k[h], b.v[h], KeysSeen::causal());
        weights_error = std::max(weights_error, double(xt::amax(xt::abs(s.weights[k] - reference.weights))()));
    }
    check.close("the lens at every depth = the loops in double (relative)", lens_error, 1e-5);
    check.close("every head's weights on your sentence = causal softmax(q·k/√d_h), as loops in double", weights_error,
                1e-5);
    check.close("the held-out loss read after the last block = the model's (relative)",
                std::abs(scores.lens_loss(0, L) - scores.held_out_loss) / scores.held_out_loss, 1e-5);
}

void check_scores(SelfChecks& check, const LanguageModel& lm, const HeadScores& s) {
    double outside = 0.0;
    for (std::size_t k = 0; k < s.previous_token.size(); ++k) {
        const double a = s.previous_token.data()[k], b = s.self.data()[k], c = s.first_token.data()[k];
        outside = std::max({outside, -a, -b, -c, a + b + c - 1.0});
    }
    check.close("each head's three shares are ≥ 0 and sum to at most 1 (three different keys)", std::max(0.0, outside),
                1e-5);
    double mean = 0.0;
    for (std::size_t i = 0; i < cols(s.loss_by_position); ++i) mean += s.loss_by_position(0, i);
    mean /= double(cols(s.loss_by_position));
    check.close("the loss by position averages to the held-out loss (relative)",
                std::abs(mean - s.held_out_loss) / s.held_out_loss, 1e-5);
    const std::size_t T = lm.trained.model.config.context, all = (lm.held_out_ids().size() - 1) / T;
    if (rows(s.held_out_windows) == std::min(all, held_out_windows))
        check.close(fmt::format("the held-out loss = the one chapter 22 logged after training ({:.4f}, relative)",
                                lm.trained.log.back().held_out),
                    std::abs(s.held_out_loss - lm.trained.log.back().held_out) / s.held_out_loss, 1e-5);
    else
        check.skip("the held-out loss = the one chapter 22 logged",
                   fmt::format("{} windows measured here, {} there", rows(s.held_out_windows), std::min(all, held_out_windows)));
}

// One composition score written out in full, in double: the (d × d) matrices W_OV of the writer
// and W_QK, W_QKᵀ or W_OV of the reader made entry by entry from the weights, multiplied, and
// their Frobenius norms summed square by square (none of the d_h × d_h shortcuts of math.cpp).
double composition_by_loops(const Gpt<float>& m, std::size_t writer, std::size_t reader, std::size_t kind) {
    const std::size_t d = m.config.d_model, dh = d / m.config.heads;
    const GptBlock<float>&w = m.h[0], &r = m.h[1];
    // row c of what block l's head h reads: γ_c times c_attn's row (part·d + h·d_h + i), column c
    const auto read = [&](const GptBlock<float>& b, std::size_t part, std::size_t h, std::size_t c, std::size_t i) {
        return double(b.ln_1_weight(0, c)) * double(b.c_attn_weight(part * d + h * dh + i, c));
    };
    Mat<double> OV = xt::zeros<double>({d, d}), reading = xt::zeros<double>({d, d});
    for (std::size_t a = 0; a < d; ++a)
        for (std::size_t b = 0; b < d; ++b)
            for (std::size_t i = 0; i < dh; ++i) {
                OV(a, b) += read(w, 2, writer, a, i) * double(w.attn_proj_weight(b, writer * dh + i));
                if (kind == 2) reading(a, b) += read(r, 2, reader, a, i) * double(r.attn_proj_weight(b, reader * dh + i));
                else reading(a, b) += read(r, 0, reader, a, i) * read(r, 1, reader, b, i);  // W_Q W_Kᵀ
            }
    if (kind == 1) reading = Mat<double>(xt::transpose(reading));  // K: W_QKᵀ
    double product = 0.0, left = 0.0, right = 0.0;
    for (std::size_t a = 0; a < d; ++a)
        for (std::size_t b = 0; b < d; ++b) {
            double e = 0.0;
            for (std::size_t c = 0; c < d; ++c) e += OV(a, c) * reading(c, b);
            product += e * e, left += OV(a, b) * OV(a, b), right += reading(a, b) * reading(a, b);
        }
    return std::sqrt(product) / std::sqrt(left * right);
}

void check_composition(SelfChecks& check, const Gpt<float>& model, const Composition& c) {
    if (model.config.layers < 2) {
        check.skip("the composition scores = the d × d products written out", "one block: nothing composes");
        return;
    }
    // each table's largest score and its smallest, written out (d³ a score: a few, not all)
    double worst = 0.0;
    const Matrix* tables[] = {&c.q, &c.k, &c.v};
    for (std::size_t kind = 0; kind < 3; ++kind) {
        const Matrix& t = *tables[kind];
        for (const auto at : {std::max_element(t.begin(), t.end()), std::min_element(t.begin(), t.end())}) {
            const std::size_t k = std::size_t(at - t.begin());
            const double loops = composition_by_loops(model, k / cols(t), k % cols(t), kind);
            const double error = std::abs(double(*at) - loops) / loops;
            worst = std::isfinite(error) ? std::max(worst, error) : std::numeric_limits<double>::infinity();
        }
    }
    check.close("the largest and smallest Q-, K- and V-composition scores = the d × d products written out "
                "in double (relative)",
                worst, 1e-5);
    bool bounded = true;  // ‖AB‖ ≤ ‖A‖ ‖B‖ for Frobenius norms
    for (const Matrix* t : tables)
        for (const float score : *t) bounded = bounded && score >= 0.0f && score <= 1.0f + 1e-6f;
    check.that("every composition score is between 0 and 1 (‖AB‖_F ≤ ‖A‖_F ‖B‖_F)", bounded);
}

// The training's last logged probe (common/gpt/gpt_copying.hpp) against steps 2 and 5 on the trained model:
// the same measures, computed by other code.
void check_trace(SelfChecks& check, const LanguageModel& lm, const HeadScores& s, const Removals& r, const Probe& probe) {
    const std::string claim = "the training's last logged probe = steps 2 and 5 on the trained model (the best "
                              "block-1 induction score, the loss on each copy)";
    if (probe.sequences != probe_sequences || probe.passages != probe_passages || probe.seed != probe_seed) {
        check.skip(claim, "--sequences, --passages or --probe-seed differ from the training's probe");
        return;
    }
    double best = 0.0;
    for (std::size_t l = 1; l < s.layers; ++l)
        for (std::size_t h = 0; h < s.heads; ++h) best = std::max(best, double(s.induction(l, h)));
    const std::vector<double>& last = lm.trained.log.back().probes;
    const double error = std::max({std::abs(best - last[0]), std::abs(double(r.repeated_losses(0, 0)) - last[1]),
                                   std::abs(double(r.repeated_losses(0, 1)) - last[2])});
    check.close(claim, error, 1e-5);
}

void check_without_writers(SelfChecks& check, const HeadScores& s, const Composition& c) {
    if (s.layers < 2) return;  // check_composition said why
    double worst = 0.0;
    for (std::size_t r = 0; r < s.heads; ++r)
        worst = std::max(worst, std::abs(double(c.induction_without(s.heads, r)) - double(s.induction(1, r))));
    check.close("with no head removed, the block-1 induction scores = step 2's", worst, 1e-6);
}

// The shift patching on step 2's first random sequence alone, against the loops in double: the
// twin, and each block-0 head's output spliced from it (the twin's rows before s, the sequence's after).
void check_shifted(SelfChecks& check, const Gpt<float>& model, const HeadScores& s, const ShiftPatching& p) {
    const std::string claim = "the induction head's weights, each block-0 head patched from the shifted twin = the "
                              "loops in double doing the same (first sequence)";
    const std::size_t H = s.heads, n = cols(s.random_sequences), half = n / 2;
    if (s.layers < 2 || half < 3) {
        check.skip(claim, s.layers < 2 ? "one block: nothing is patched" : "sequences shorter than 3 tokens");
        return;
    }
    bool shifted_by_one = rows(p.twin_sequences) == rows(s.random_sequences) && cols(p.twin_sequences) == n;
    for (std::size_t b = 0; shifted_by_one && b < rows(s.random_sequences); ++b)
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t from = i == 0 ? half - 1 : i < half ? i - 1 : i;  // the last token first, then one later
            shifted_by_one = shifted_by_one && p.twin_sequences(b, i) == s.random_sequences(b, from);
        }
    check.that("each twin is its sequence with the first copy one position later (its last token first), the "
               "second copy the same",
               shifted_by_one);
    const Matrix first = xt::view(s.random_sequences, xt::range(0, 1), xt::all());
    const ShiftPatching one = patch_shifted(model, first, p.reader);
    Tokens sequence(n), twin(n);
    for (std::size_t i = 0; i < n; ++i)
        sequence[i] = std::size_t(first(0, i)), twin[i] = std::size_t(one.twin_sequences(0, i));
    const GptByLoops clean = gpt_by_loops(model, sequence), shifted = gpt_by_loops(model, twin);
    const auto weights = [&](const GptByLoops& run, std::size_t row, double& worst) {
        const Mat<double>& A = run.weights[H + p.reader];
        double on_copy = 0.0, after = 0.0;
        for (std::size_t i = half; i + 3 <= n; ++i) on_copy += A(i, i - half + 1), after += A(i, i - half + 2);
        const double queries = double(half - 2);
        worst = std::max({worst, std::abs(one.weights(row, 0) - on_copy / queries),
                          std::abs(one.weights(row, 1) - after / queries)});
    };
    double worst = 0.0;
    weights(clean, 0, worst), weights(shifted, 1, worst);
    for (std::size_t w = 0; w < H; ++w) {
        Mat<double> rows_ = clean.heads[w];
        for (std::size_t i = 0; i < half; ++i)
            for (std::size_t c = 0; c < cols(rows_); ++c) rows_(i, c) = shifted.heads[w](i, c);
        weights(gpt_by_loops(model, sequence, {{0, w, rows_}}), 2 + w, worst);
    }
    check.close(claim, worst, 1e-5);
}

}  // namespace

void check_inside(SelfChecks& check, const LanguageModel& lm, const HeadScores& scores, const Removals& removals,
                  const Patching& patching, const SentenceLens& lens, const Composition& composition,
                  const ShiftPatching& shifted, const Probe& probe, const Tokens& clean, const Tokens& corrupt, const Tokens& sentence) {
    const Gpt<float>& model = lm.trained.model;
    check_scores(check, lm, scores);
    check_first_window(check, model, scores);
    check_patching(check, model, patching, clean, corrupt);
    check_lens(check, model, lens, sentence, scores);
    check_composition(check, model, composition);
    check_without_writers(check, scores, composition);
    check_shifted(check, model, scores, shifted);
    check_trace(check, lm, scores, removals, probe);
    const double first = removals.repeated_losses(0, 0), second = removals.repeated_losses(0, 1);
    check.that(fmt::format("the losses of the repeated passages are finite and positive ({:.3f}, {:.3f})", first, second),
               std::isfinite(first) && std::isfinite(second) && first > 0 && second > 0);
}
