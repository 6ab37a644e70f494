// Chapter 11 · Learning W_Q, W_K, W_V by gradient descent
//
// The lesson: the training of math.cpp shown step by step (the task, why raw
// similarity fails, the random start, one backward pass, the gradient check,
// the training curve, the attention before and after, what W_Q · W_Kᵀ learned),
// then checked against what was computed another way: finite differences, the
// softmax's explicit Jacobian, attention and the loss by loops in double.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <xtensor/xsort.hpp>

#include "chapters/11_learning_projections/math.hpp"
#include "common/lesson/labelled_csv.hpp"
#include "common/lesson/lesson.hpp"
#include "common/lesson/text_table.hpp"
#include "common/math/input_error.hpp"
#include "common/math/matmul.hpp"

namespace {

std::string shape(const Matrix& m) { return fmt::format("({} × {})", rows(m), cols(m)); }
std::string largest(const Matrix& m) { return fmt::format("{:.5f}", double(xt::amax(xt::abs(m))())); }

// The sentence of --input, or the default one.
Sentence shown_sentence(const std::string& input) {
    if (input.empty()) return make_sentence({"queen", "box", "king", "it", "she", "he"}, {0, 2, 1, 0, 0, 0});
    const LabelledMatrix table = read_labelled_csv(input);
    require_width(table, d_model, fmt::format("this chapter's embeddings ({})", fmt::join(dimensions, ",")));
    if (table.columns != dimensions)
        throw InputError(fmt::format("{}: the columns must be named {}", input, fmt::join(dimensions, ",")));
    return label_sentence(table.rows, table.values);
}

// Step: the shape and largest entry of every gradient of one backward pass.
void show_backward(Lesson& lesson, const Learning& r) {
    const Sentence& first = r.data[0];
    const AttentionGradients& g = r.first_backward;
    lesson.say(fmt::format(
        "The chain rule, run from the loss back to the weights, for the sentence\n"
        "\"{}\". Each gradient has the shape of what it is the gradient of,\n"
        "and each line undoes one line of the forward pass (common/math/attention_backward.cpp).",
        fmt::join(first.tokens, " ")));
    lesson.table(
        {"forward line", "backward line", "shape", "largest"},
        {{"loss = Σ ‖output − target‖² / (nB)", "d_output = 2 (output − target) / (nB)", shape(g.d_output),
          largest(g.d_output)},
         {"output = weights · V", "d_weights = d_output · Vᵀ", shape(g.d_weights), largest(g.d_weights)},
         {"", "d_V = weightsᵀ · d_output", shape(g.d_V), largest(g.d_V)},
         {"P = softmax_rows(scaled_scores)", "d_scaled_scores = P ⊙ (dP − rowsum(dP ⊙ P))", shape(g.d_scaled_scores),
          largest(g.d_scaled_scores)},
         {"scaled_scores = scores / √d_k", "d_scores = d_scaled_scores / √d_k", shape(g.d_scores), largest(g.d_scores)},
         {"scores = Q · Kᵀ", "d_Q = d_scores · K", shape(g.d_Q), largest(g.d_Q)},
         {"", "d_K = d_scoresᵀ · Q", shape(g.d_K), largest(g.d_K)},
         {"Q = X · W_Q", "d_W_Q = Xᵀ · d_Q", shape(g.d_W_Q), largest(g.d_W_Q)},
         {"K = X · W_K", "d_W_K = Xᵀ · d_K", shape(g.d_W_K), largest(g.d_W_K)},
         {"V = X · W_V", "d_W_V = Xᵀ · d_V", shape(g.d_W_V), largest(g.d_W_V)}});
    lesson.say(
        "The softmax line is the one to understand (P = weights, dP = d_weights). Row by\n"
        "row, p = softmax(s) has the Jacobian ∂p_j/∂s_k = p_j (δ_jk − p_k), so\n"
        "ds_k = p_k (dp_k − Σ_j dp_j p_j): a score goes up when its weight's gradient is\n"
        "below the row's weighted mean (the loss wants that weight to grow), and each row\n"
        "of d_scaled_scores sums to 0, because adding one number to a whole row of\n"
        "scores changes no weight.");
    lesson.show(
        "d_weights", g.d_weights,
        ShowAs("d_output · Vᵀ").labels(first.tokens, first.tokens).decimals(4));  // (n × n), a gradient: no heat map
    lesson.show("d_scaled_scores", g.d_scaled_scores,
                ShowAs("P ⊙ (dP − rowsum(dP ⊙ P))").labels(first.tokens, first.tokens).decimals(4));
    lesson.say(
        "The causal mask makes the weights above the diagonal exactly 0, and so are the\n"
        "gradients there: a hidden key gets no blame. Row 0 is all 0 as well: the first\n"
        "token sees only itself, and its weight is 1 whatever its score.");
}

// Step: every gradient entry against its central difference; the gradients are kept for --dump.
void show_gradient_check(Lesson& lesson, const Learning& r) {
    const std::vector<const Matrix*> analytic = {&r.start.d_W_Q, &r.start.d_W_K, &r.start.d_W_V};
    std::vector<TextRow> table;
    for (std::size_t p = 0; p < r.gradient_check.size(); ++p) {
        const FiniteDifferences& c = r.gradient_check[p];
        table.push_back({c.name, shape(*analytic[p]), std::to_string(analytic[p]->size()), largest(*analytic[p]),
                         fmt::format("{:.1e}", c.max_abs_error), fmt::format("{:.1e}", c.max_relative_error)});
    }
    lesson.say(fmt::format(
        "∂loss/∂w ≈ (loss(w + h) − loss(w − h)) / 2h for every entry w of W_Q, W_K and\n"
        "W_V, with h = {}, on the whole training set at the random start. Relative error\n"
        "= |analytic − numeric| / max(|analytic|, |numeric|, 1% of the largest entry of\n"
        "the three gradients).",
        finite_difference_h));
    lesson.table({"gradient", "shape", "entries", "max |entry|", "max |error|", "max relative error"}, table);
    lesson.say(
        fmt::format("Largest relative error: {:.1e}. A wrong line in the backward pass gives errors\n"
                    "near 1; float32 rounding alone stays below 1e-2.\n"
                    "\n"
                    "Why h = {}: the formula's own error grows like h², and the loss's rounding is\n"
                    "divided by 2h. Were the loss a float32, it would round by about 1.2e-7 of itself\n"
                    "({:.1e} here), {:.1e} after dividing by 2h = {:g}, and that would be the error of\n"
                    "every difference. It is summed in double, so only the float32 outputs round: the\n"
                    "largest error measured above, h² term and rounding together, is {:.1e}.",
                    r.worst_relative_error, finite_difference_h, 1.2e-7 * r.start.loss, r.float_rounding_over_2h,
                    2.0 * double(finite_difference_h), r.worst_abs_error));
    // The full-batch gradients of Adam's first step, for a check against autograd.
    lesson.keep_for_dump("d_W_Q", r.start.d_W_Q);
    lesson.keep_for_dump("d_W_K", r.start.d_W_K);
    lesson.keep_for_dump("d_W_V", r.start.d_W_V);
}

// Step: the loss while training, as a table and a chart.
void show_training(Lesson& lesson, const Learning& r, float lr) {
    lesson.say(
        "Each step computes the loss and the gradients on the whole training set, then\n"
        "moves every entry. Plain gradient descent moves w by −lr · ∂loss/∂w; Adam\n"
        "(adam_step in math.cpp) divides a running mean of the gradient by a running mean of\n"
        "its size, so every entry moves about lr per step whether its gradient is large\n"
        "or tiny. The held-out sentences are never trained on.");
    std::vector<TextRow> table;
    for (const TrainingRow& row : r.table)
        table.push_back({std::to_string(row.step), fmt::format("{:.5f}", row.loss),
                         fmt::format("{:.5f}", row.held_out_loss), fmt::format("{:.3f}", row.weight_on_right)});
    lesson.table({"step", "loss", "held-out loss", "weight on the right noun"}, table);
    Matrix loss = Matrix::from_shape({r.curve.size(), 1});  // (steps + 1 × 1)
    std::vector<double> step_numbers, loss_values;
    for (std::size_t t = 0; t < r.curve.size(); ++t)
        loss(t, 0) = r.curve[t], step_numbers.push_back(double(t)), loss_values.push_back(r.curve[t]);
    lesson.keep_for_dump("loss", loss);
    const std::size_t last = r.curve.size() - 1;
    ChartOptions chart;
    chart.width = std::min<std::size_t>(60, r.curve.size()), chart.label_width = 9;
    chart.y_text = [](double v) { return fmt::format("{:.5f}", v); };
    chart.ticks = {{0.0, "step 0"}, {double(last), fmt::format("step {}", last)}};
    lesson.chart("loss", "Training loss of one attention layer", {"step", false}, {"loss (mean squared error)", true},
                 {{fmt::format("Adam, lr {}", lr), step_numbers, loss_values}}, chart);
}

// Step: the shown sentence's attention before and after, and what each token fetched.
void show_before_after(Lesson& lesson, const Learning& r) {
    const Labels& tokens = r.shown.tokens;
    const std::size_t n = tokens.size();
    const AttentionForward& trained = r.trained_shown;
    lesson.show_side_by_side(
        {{"weights_before", r.start_shown.weights, ShowAs("at the start").labels(tokens, tokens).heat_map()},
         {"weights", trained.weights, ShowAs("after training").labels(tokens, tokens).heat_map()}});
    lesson.keep_for_dump("X", r.shown.X);
    lesson.show("output", trained.output,
                ShowAs("weights · X · W_V").labels(tokens, colours).decimals(2));  // (n × d_v)
    std::vector<TextRow> reading;
    for (std::size_t i = 0; i < n; ++i) {  // a long --input: the table shows the first and last rows
        const std::size_t top = argmax_of_row(trained.weights, i);
        reading.push_back({tokens[i], tokens[top], fmt::format("{:.3f}", trained.weights(i, top)),
                           colours[argmax_of_row(trained.output, i)],
                           r.shown.right[i] == n ? "—" : colours[argmax_of_row(r.shown.target, i)]});
    }
    lesson.table({"token", "looks most at", "weight", "output", "target"}, reading);
}

// Step: W_Q · W_Kᵀ, which features look for which, and W_V.
void show_learned(Lesson& lesson, const Learning& r) {
    lesson.say(
        "score(i, j) = q_i · k_j = x_i · (W_Q · W_Kᵀ) · x_jᵀ, so entry (a, b) of the\n"
        "(d_model × d_model) matrix W_Q · W_Kᵀ says how much a query with feature a\n"
        "looks for a key with feature b. Rows: what the asking token has; columns: what\n"
        "the found token has.");
    lesson.show("W_QK", r.W_QK, ShowAs("W_Q · W_Kᵀ").labels(dimensions, dimensions).decimals(1).heat_map());
    std::vector<TextRow> looks;
    for (std::size_t a = 0; a < colour_column; ++a) {  // the kind and pronoun rows
        const std::size_t top = argmax_of_row(r.W_QK, a);
        looks.push_back({dimensions[a], dimensions[top], fmt::format("{:.1f}", r.W_QK(a, top))});
    }
    lesson.table({"query feature", "looks most for", "entry"}, looks);
    lesson.say(
        "he looks for male, she for female, it for thing: the relation that similarity\n"
        "could not express. Each noun looks for its own kind, so it finds itself. The\n"
        "colour entries matter less: the kind entries (7 to 10) outweigh them.\n"
        "\n"
        "W_V learned to hand over the colour. Every noun has exactly one kind, so the\n"
        "three kind rows came to add about the same vector to every noun's value, and\n"
        "the colour rows are shifted to make up for it: male + red ≈ the red one-hot.\n"
        "The pronoun rows moved while attention was still spread out, then stopped:\n"
        "once no token looks at a pronoun, no output uses them and their gradient is\n"
        "close to 0.");
    lesson.show("W_V", r.trained.W_V, ShowAs("learned").labels(dimensions, colours).decimals(2));  // (d_model × d_v)
    lesson.keep_for_dump("W_Q", r.trained.W_Q);
    lesson.keep_for_dump("W_K", r.trained.W_K);
    lesson.keep_for_dump("X_train", r.X_train);
    lesson.keep_for_dump("target_train", r.target_train);
    lesson.keep_for_dump("lengths", r.lengths);
}

// Causal attention by loops in double: weights[i][j] = softmax_j(q_i · k_j / √d_k) over j ≤ i,
// output_i = Σ_j weights[i][j] v_j. Independent of common/math's attention and mask.
void attention_by_loops(const Matrix& X, const Weights& w, std::vector<std::vector<double>>& weights,
                        std::vector<std::vector<double>>& output) {
    const Matrix Q = matmul(X, w.W_Q), K = matmul(X, w.W_K), V = matmul(X, w.W_V);
    const std::size_t n = rows(X), d_k = cols(Q);
    weights.assign(n, std::vector<double>(n, 0.0));
    output.assign(n, std::vector<double>(cols(V), 0.0));
    for (std::size_t i = 0; i < n; ++i) {
        double top = -1e300, z = 0.0;
        for (std::size_t j = 0; j <= i; ++j) {  // causal: keys 0…i
            double s = 0.0;
            for (std::size_t c = 0; c < d_k; ++c) s += double(Q(i, c)) * double(K(j, c));
            weights[i][j] = s / std::sqrt(double(d_k));
            top = std::max(top, weights[i][j]);
        }
        for (std::size_t j = 0; j <= i; ++j) z += (weights[i][j] = std::exp(weights[i][j] - top));
        for (std::size_t j = 0; j <= i; ++j) {
            weights[i][j] /= z;
            for (std::size_t c = 0; c < cols(V); ++c) output[i][c] += weights[i][j] * double(V(j, c));
        }
    }
}

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

// Each claim against something computed another way.
void check(SelfChecks& check, const Learning& r, const std::string& gradient_step, float lr) {
    check.close(fmt::format("each analytic gradient matches its central difference, {}", gradient_step),
                r.worst_relative_error, 1e-2);
    check.close("… closer than a float32 loss's rounding / 2h",
                r.worst_abs_error, r.float_rounding_over_2h);
    // The softmax line against its explicit Jacobian J = diag(p) − p pᵀ, in double.
    const Matrix& P = r.first_forward.weights;
    const AttentionGradients& g = r.first_backward;
    double jacobian_error = 0.0;
    bool hidden_zero = true;
    for (std::size_t i = 0; i < rows(P); ++i)
        for (std::size_t k = 0; k < cols(P); ++k) {
            double ds = 0.0;
            for (std::size_t j = 0; j < cols(P); ++j)
                ds += double(g.d_weights(i, j)) * double(P(i, j)) * ((j == k ? 1.0 : 0.0) - double(P(i, k)));
            const double e = std::abs(ds - double(g.d_scaled_scores(i, k)));  // a NaN is an error too
            jacobian_error = std::isnan(e) ? HUGE_VAL : std::max(jacobian_error, e);
            if (k > i) hidden_zero = hidden_zero && g.d_scaled_scores(i, k) == 0.0f;
        }
    check.close("d_scaled_scores = d_weights · J by rows, J = diag(p) − p pᵀ", jacobian_error, 1e-7);
    check.that("the keys hidden by the causal mask get exactly 0 gradient", hidden_zero);
    // Attention and the loss again, by loops in double.
    std::vector<std::vector<double>> weights, output;
    attention_by_loops(r.shown.X, r.trained, weights, output);
    double weights_error = 0.0;
    for (std::size_t i = 0; i < weights.size(); ++i)
        for (std::size_t j = 0; j < weights.size(); ++j)
            weights_error = std::max(weights_error, std::abs(weights[i][j] - r.trained_shown.weights(i, j)));
    check.close("trained weights = softmax(q·k/√d_k), loops in double",
                weights_error, 1e-5);
    double loop_loss = 0.0;
    for (const Sentence& s : r.data) {
        attention_by_loops(s.X, r.trained, weights, output);
        for (std::size_t i = 0; i < rows(s.X); ++i)
            for (std::size_t c = 0; c < d_v; ++c)
                loop_loss += std::pow(output[i][c] - s.target(i, c), 2) / double(rows(s.X) * r.data.size());
    }
    check.close("the final loss, recomputed by loops in double", std::abs(loop_loss - double(r.curve.back())), 1e-5);
    // Each entry moves by lr · (1 ± ε/|g|) and float rounds the bias corrections: 1e-4 · lr covers both.
    check.close("Adam's first step = W − lr · g/(|g| + ε), in double", adam_first_step_error(r, lr),
                1e-4 * double(lr) + 1e-6);
    check.that(fmt::format("raw similarity puts less on the noun than uniform attention ({:.3f} < {:.3f})",
                           r.raw_right, r.uniform),
               r.raw_right < r.uniform);
    const float first = r.curve.front(), last = r.curve.back();
    const std::string learned = "training divided the loss by at least 50, every training token outputs its colour, "
                                "and a pronoun puts more weight on its noun than uniform attention";
    if (last > converged_loss) {
        check.skip(learned, fmt::format("training did not converge (final loss {:.5f} > {:g}); try more --steps, "
                                        "another --seed, or d_k > 1",
                                        last, converged_loss));
        return;
    }
    check.that(fmt::format("training divided the loss by at least 50 ({:.5f} → {:.5f})", first, last),
               last * 50.0f <= first);
    check.that(fmt::format("every training token outputs its colour ({:.1f}%; held out: {:.1f}%)",
                           100.0 * r.colour_after, 100.0 * r.colour_held_out),
               r.colour_after == 1.0f);
    // Not "≥ 0.9 on the noun": W_V may scale a noun's value up and fetch it with less weight.
    check.that(fmt::format("a pronoun weighs its noun above uniform ({:.3f}; held out {:.3f}; uniform {:.3f})",
                           r.right_after, r.right_held_out, r.uniform),
               r.right_after > r.uniform && r.right_held_out > r.uniform);
}

// The chapter's flags, with their defaults.
struct Flags {
    int steps = 150;
    float lr = 0.05f;
    std::uint64_t seed = 11;
    std::size_t d_k = 3;
};

void add_flags(CLI::App& cli, Flags& f) {
    cli.add_option("--steps", f.steps, "training steps (Adam updates on the whole training set)")
        ->check(CLI::Range(1, 5000))
        ->capture_default_str();
    cli.add_option("--lr", f.lr, "Adam's learning rate: about how far each entry moves per step")
        ->check(CLI::Range(1e-4f, 1.0f))
        ->capture_default_str();
    cli.add_option("--seed", f.seed, "seed of the sentences and of the random initial weights")
        ->check(CLI::Validator(
            [](std::string& text) {
                return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos
                           ? std::string()
                           : std::string("expected a whole number ≥ 0");
            },
            ""))
        ->capture_default_str();
    cli.add_option("--d-k", f.d_k, "width of the queries and keys (columns of W_Q and W_K)")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
}

// Step: the task, the shown sentence and its targets, and the training set.
void show_task(Lesson& lesson, const Learning& r, std::uint64_t seed) {
    const Labels& tokens = r.shown.tokens;
    lesson.say(
        "A sentence names a king, a queen and a box in some order, each with a colour\n"
        "drawn at random, then says one to three pronouns. Each token's output must be\n"
        "a colour: a noun's own, and for a pronoun the colour of the noun it stands for\n"
        "(he → king, she → queen, it → box). The pronoun cannot know that colour: it\n"
        "changes from sentence to sentence, so it must be fetched by attention.");
    lesson.show("X", r.shown.X, ShowAs("one token per row").labels(tokens, dimensions).decimals(1));  // (n × d_model)
    lesson.show("target", r.shown.target,
                ShowAs("the colour each token must fetch").labels(tokens, colours).decimals(1));  // (n × d_v)
    lesson.say(
        fmt::format("The training set is {} random sentences like this one (seed {}), and {} more are\n"
                    "held out to test what was learned. The loss is the mean squared error:\n"
                    "loss = (1/B) Σ_sentences (1/n) Σ_i ‖output_i − target_i‖².",
                    training_sentences, seed, held_out_sentences));
}

// Step: attention with W_Q = W_K = I and the perfect W_V.
void show_raw_similarity(Lesson& lesson, const Learning& r) {
    const Labels& tokens = r.shown.tokens;
    lesson.say(
        "With W_Q = W_K = I the score is the dot product of two embeddings (chapter 01).\n"
        "Give the layer the perfect W_V (it copies the three colour columns), so that only\n"
        "attention can be wrong. \"she\" shares no dimension with \"queen\": their score is\n"
        "0, the same as with every token but herself. And nouns of the same colour find\n"
        "each other: similarity sees what tokens have in common, not what they need.");
    lesson.show("weights_raw", r.raw_shown.weights,
                ShowAs("softmax(X · Xᵀ / √d_model)").labels(tokens, tokens).heat_map());
    lesson.say(
        fmt::format("On the training set: loss {:.5f}, and a pronoun puts {:.3f} of its weight on its\n"
                    "noun, less than uniform attention would ({:.3f}). \"she looks for a female noun\"\n"
                    "is a relation between two different features; only learned projections can\n"
                    "express it.",
                    r.raw_loss, r.raw_right, r.uniform));
}

// Step: the random W_Q, W_K, W_V before training.
void show_random_start(Lesson& lesson, const Learning& r, std::size_t d_k) {
    lesson.say(fmt::format(
        "W_Q, W_K ({} × {}) and W_V ({} × {}) start as normal noise with standard deviation {}.",
        d_model, d_k, d_model, d_v, init_std));
    lesson.show("W_Q_before", r.before.W_Q,
                ShowAs("random").labels(dimensions, numbered("k", d_k)).decimals(2));  // (d_model × d_k)
    lesson.keep_for_dump("W_K_before", r.before.W_K);                                  // (d_model × d_k)
    lesson.keep_for_dump("W_V_before", r.before.W_V);                                  // (d_model × d_v)
    lesson.say(
        fmt::format("W_K and W_V are noise like it. The loss on the training set is {:.5f}, and a\n"
                    "pronoun puts {:.3f} of its weight on its noun.",
                    r.start.loss, r.start_right));
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch11_learning_projections", "Chapter 11 · Learning W_Q, W_K, W_V by gradient descent");
    const std::string& input = lesson.add_input_option(
        "queen (red), box (blue), king (green), it, she, he: the sentence whose attention is shown, with columns "
        "male,female,thing,he,she,it,red,green,blue");
    Flags flags;
    add_flags(lesson.cli(), flags);

    return lesson.run(argc, argv, [&] {
        const Learning r = learn_projections(shown_sentence(input), flags.seed, flags.d_k, flags.steps, flags.lr);
        lesson.step("task", "The task: every pronoun fetches the colour of its noun",
                    [&] { show_task(lesson, r, flags.seed); });
        lesson.step("raw-similarity", "Why raw similarity fails", [&] { show_raw_similarity(lesson, r); });
        lesson.step("random-start", "The layer to learn, at its random start",
                    [&] { show_random_start(lesson, r, flags.d_k); });
        lesson.step("backward-pass", "One backward pass, step by step (the first training sentence)",
                    [&] { show_backward(lesson, r); });
        lesson.step("gradient-check", "Gradient check: every entry against finite differences",
                    [&] { show_gradient_check(lesson, r); });
        lesson.step("training", fmt::format("Training: {} steps of Adam, learning rate {}", flags.steps, flags.lr),
                    [&] { show_training(lesson, r, flags.lr); });
        lesson.step("before-after", "Attention before and after training", [&] { show_before_after(lesson, r); });
        lesson.step("learned-projections", "What W_Q · W_Kᵀ learned: which features look for which",
                    [&] { show_learned(lesson, r); });
        lesson.step("checks", "Self-checks",
                    [&] { check(lesson.checks(), r, lesson.ref("gradient-check"), flags.lr); });
        lesson.present();
    });
}
