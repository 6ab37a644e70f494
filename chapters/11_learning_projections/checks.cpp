#include "chapters/11_learning_projections/checks.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/display/print.hpp"
#include "common/reference/attention_by_loops.hpp"
#include "common/reference/softmax_backward_by_jacobian.hpp"

namespace {

// Adam's first step in closed form, in double: m̂ = g and v̂ = g², so W − lr · g/(|g| + ε);
// the largest difference from what adam_step did.
double adam_first_step_error(const Learning& r, float lr) {
    double worst = 0.0;
    const auto compare = [&](const Matrix& before, const Matrix& g, const Matrix& after) {
        for (std::size_t i = 0; i < before.size(); ++i) {
            const double expected = double(before.flat(i)) - double(lr) * g.flat(i) / (std::abs(g.flat(i)) + 1e-8);
            const double e = std::abs(double(after.flat(i)) - expected);
            worst = std::isnan(e) ? HUGE_VAL : std::max(worst, e);
        }
    };
    compare(r.before.W_Q, r.start.d_W_Q, r.after_one_step.W_Q);
    compare(r.before.W_K, r.start.d_W_K, r.after_one_step.W_K);
    compare(r.before.W_V, r.start.d_W_V, r.after_one_step.W_V);
    return worst;
}

// The training loss of the trained weights again: each sentence's causal attention by the
// reference's loops (from its Q, K, V), the squared errors summed in double.
double loss_by_loops(const Learning& r) {
    double loss = 0.0;
    for (const Sentence& s : r.data) {
        const AttentionForward f = forward(s.X, r.trained);
        const Matrix output = attention_by_loops(f.Q, f.K, f.V, KeysSeen::causal()).output;
        for (std::size_t i = 0; i < rows(s.X); ++i)
            for (std::size_t c = 0; c < d_v; ++c)
                loss += std::pow(double(output(i, c)) - double(s.target(i, c)), 2) / double(rows(s.X) * r.data.size());
    }
    return loss;
}

}  // namespace

void check_learning(SelfChecks& check, const Learning& r, const std::string& gradient_step, float lr) {
    check.close(fmt::format("each analytic gradient matches its central difference, {}", gradient_step),
                r.worst_relative_error, 1e-2);
    check.close("… closer than a float32 loss's rounding / 2h", r.worst_abs_error, r.float_rounding_over_2h);
    // The softmax line against its explicit Jacobian J = diag(p) − p pᵀ, in double.
    const Matrix& P = r.first_forward.weights;
    const AttentionGradients& g = r.first_backward;
    check.close("d_scaled_scores = d_weights · J by rows, J = diag(p) − p pᵀ",
                max_abs_difference(g.d_scaled_scores, softmax_backward_by_jacobian(P, g.d_weights)), 1e-7);
    bool hidden_zero = true;
    for (std::size_t i = 0; i < rows(P); ++i)
        for (std::size_t k = i + 1; k < cols(P); ++k) hidden_zero = hidden_zero && g.d_scaled_scores(i, k) == 0.0f;
    check.that("the keys hidden by the causal mask get exactly 0 gradient", hidden_zero);
    // Attention and the loss again, by the reference's loops in double.
    const AttentionForward& trained = r.trained_shown;
    check.close("trained weights = softmax(q·k/√d_k), loops in double",
                max_abs_difference(trained.weights,
                                   attention_by_loops(trained.Q, trained.K, trained.V, KeysSeen::causal()).weights),
                1e-5);
    check.close("the final loss, recomputed by loops in double", std::abs(loss_by_loops(r) - double(r.curve.back())),
                1e-5);
    // Each entry moves by lr · (1 ± ε/|g|) and float rounds the bias corrections: 1e-4 · lr covers both.
    check.close("Adam's first step = W − lr · g/(|g| + ε), in double", adam_first_step_error(r, lr),
                1e-4 * double(lr) + 1e-6);
    check.that(fmt::format("raw similarity puts less on the noun than uniform attention ({} < {})",
                           format_number(r.raw_right, 3), format_number(r.uniform, 3)),
               r.raw_right < r.uniform);
    const float first = r.curve.front(), last = r.curve.back();
    const std::string learned = "training divided the loss by at least 50, every training token outputs its colour, "
                                "and a pronoun puts more weight on its noun than uniform attention";
    if (last > converged_loss) {
        check.skip(learned, fmt::format("training did not converge (final loss {} > {:g}); try more --steps, "
                                        "another --seed, or d_k > 1",
                                        format_number(last, 5), converged_loss));
        return;
    }
    check.that(fmt::format("training divided the loss by at least 50 ({} → {})", format_number(first, 5),
                           format_number(last, 5)),
               last * 50.0f <= first);
    check.that(fmt::format("every training token outputs its colour ({}%; held out: {}%)",
                           format_number(100.0f * r.colour_after, 1), format_number(100.0f * r.colour_held_out, 1)),
               r.colour_after == 1.0f);
    // Not "≥ 0.9 on the noun": W_V may scale a noun's value up and fetch it with less weight.
    check.that(fmt::format("a pronoun weighs its noun above uniform ({}; held out {}; uniform {})",
                           format_number(r.right_after, 3), format_number(r.right_held_out, 3),
                           format_number(r.uniform, 3)),
               r.right_after > r.uniform && r.right_held_out > r.uniform);
}
