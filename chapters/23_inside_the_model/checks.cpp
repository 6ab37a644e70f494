#include "chapters/23_inside_the_model/checks.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/reference/gpt_by_loops.hpp"

namespace {

// max |a − b| over max(1, max |b|): logits compared relative to their size.
double relative_difference(const Matrix& a, const Mat<double>& b, std::size_t row_from = 0) {
    double error = 0.0, size = 1.0;
    for (std::size_t r = 0; r < rows(a); ++r)
        for (std::size_t c = 0; c < cols(a); ++c) {
            error = std::max(error, std::abs(double(a(r, c)) - b(row_from + r, c)));
            size = std::max(size, std::abs(b(row_from + r, c)));
        }
    return error / size;
}

Mat<double> in_double(const Matrix& m) { return xt::cast<double>(m); }

// Every head removed, and replaced by its mean, on the first held-out window: the forward pass
// of common/math against the loops in double with that head's output replaced the same way.
void check_removals(SelfChecks& check, const Gpt<float>& model, const HeadScores& s) {
    const std::size_t T = model.config.context, H = model.config.heads, dh = model.config.d_model / H;
    Tokens window(T);
    for (std::size_t i = 0; i < T; ++i) window[i] = std::size_t(s.held_out_windows(0, i));
    double worst = 0.0;
    for (std::size_t k = 0; k < s.layers * H; ++k)
        for (const bool mean : {false, true}) {
            Mat<double> rows_ = Mat<double>::from_shape({1, dh});
            for (std::size_t c = 0; c < dh; ++c) rows_(0, c) = mean ? double(s.mean_outputs(k, c)) : 0.0;
            const HeadReplacement<float> fast{k / H, k % H, xt::cast<float>(rows_)};
            const Matrix logits = gpt_forward(model, {window}, {fast}).logits;
            worst = std::max(worst, relative_difference(logits, gpt_by_loops(model, window, {{k / H, k % H, rows_}}).logits));
        }
    check.close("every head removed (z_h ← 0) or replaced by its mean = the loops in double doing the same "
                "(logits, relative)",
                worst, 1e-5);
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
    for (std::size_t k = 0; k < L * H; ++k) weights_error = std::max(weights_error, relative_difference(s.weights[k], loops.weights[k]));
    check.close("the lens at every depth = the loops in double (relative)", lens_error, 1e-5);
    check.close("every head's weights on your sentence = the loops in double", weights_error, 1e-5);
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
    const std::size_t T = lm.trained.model.config.context, all = (lm.held_out_ids.size() - 1) / T;
    if (rows(s.held_out_windows) == std::min(all, held_out_windows))
        check.close(fmt::format("the held-out loss = the one chapter 22 logged after training ({:.4f}, relative)",
                                lm.trained.log.back().held_out),
                    std::abs(s.held_out_loss - lm.trained.log.back().held_out) / s.held_out_loss, 1e-5);
    else
        check.skip("the held-out loss = the one chapter 22 logged",
                   fmt::format("{} windows measured here, {} there", rows(s.held_out_windows), std::min(all, held_out_windows)));
}

}  // namespace

void check_inside(SelfChecks& check, const LanguageModel& lm, const HeadScores& scores, const Removals& removals,
                  const Patching& patching, const SentenceLens& lens, const Tokens& clean, const Tokens& corrupt,
                  const Tokens& sentence) {
    const Gpt<float>& model = lm.trained.model;
    check_scores(check, lm, scores);
    check_removals(check, model, scores);
    check_patching(check, model, patching, clean, corrupt);
    check_lens(check, model, lens, sentence, scores);
    const double first = removals.repeated_losses(0, 0), second = removals.repeated_losses(0, 1);
    check.that(fmt::format("the losses of the repeated passages are finite and positive ({:.3f}, {:.3f})", first, second),
               std::isfinite(first) && std::isfinite(second) && first > 0 && second > 0);
}
