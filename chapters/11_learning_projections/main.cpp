// Chapter 11 · Learning W_Q, W_K, W_V by gradient descent
//
// The lesson: the training of math.cpp shown step by step (the task, why raw similarity
// fails, the random start, one backward pass, the gradient check, the training curve, the
// attention before and after, what W_Q · W_Kᵀ learned), then checked (checks.cpp).
#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "chapters/11_learning_projections/checks.hpp"
#include "chapters/11_learning_projections/inputs.hpp"
#include "chapters/11_learning_projections/math.hpp"
#include "common/display/print.hpp"
#include "common/display/text_table.hpp"
#include "common/inputs/sequence.hpp"
#include "common/lesson/lesson.hpp"

namespace {

std::string largest(const Matrix& m) { return format_number(largest_entry(m), 5); }

// Step: the shape and largest entry of every gradient of one backward pass.
void show_backward(Lesson& lesson, const Learning& r) {
    const AttentionGradients& g = r.first_backward;
    lesson.say(fmt::format(
        "The chain rule, run from the loss back to the weights, for the sentence\n"
        "\"{}\". Each gradient has the shape of what it is the gradient of,\n"
        "and each line undoes one line of the forward pass (common/attention/attention_backward.cpp).",
        fmt::join(r.data[0].tokens, " ")));
    const std::vector<std::tuple<const char*, const char*, const Matrix*>> lines = {
        {"loss = Σ ‖output − target‖² / (nB)", "d_output = 2 (output − target) / (nB)", &g.d_output},
        {"output = weights · V", "d_weights = d_output · Vᵀ", &g.d_weights},
        {"", "d_V = weightsᵀ · d_output", &g.d_V},
        {"P = softmax_rows(scaled_scores)", "d_scaled_scores = P ⊙ (dP − rowsum(dP ⊙ P))", &g.d_scaled_scores},
        {"scaled_scores = scores / √d_k", "d_scores = d_scaled_scores / √d_k", &g.d_scores},
        {"scores = Q · Kᵀ", "d_Q = d_scores · K", &g.d_Q},
        {"", "d_K = d_scoresᵀ · Q", &g.d_K},
        {"Q = X · W_Q", "d_W_Q = Xᵀ · d_Q", &g.d_W_Q},
        {"K = X · W_K", "d_W_K = Xᵀ · d_K", &g.d_W_K},
        {"V = X · W_V", "d_W_V = Xᵀ · d_V", &g.d_W_V}};
    std::vector<TextRow> table;
    for (const auto& [forward_line, backward_line, m] : lines)
        table.push_back({forward_line, backward_line, shape_text(*m), largest(*m)});
    lesson.table({"forward line", "backward line", "shape", "largest"}, table);
    lesson.say("The softmax line is the one to understand (P = weights, dP = d_weights). Row by\n"
               "row, p = softmax(s) has the Jacobian ∂p_j/∂s_k = p_j (δ_jk − p_k), so\n"
               "ds_k = p_k (dp_k − Σ_j dp_j p_j): a score goes up when its weight's gradient is\n"
               "below the row's weighted mean (the loss wants that weight to grow), and each row\n"
               "of d_scaled_scores sums to 0, because adding one number to a whole row of\n"
               "scores changes no weight.");
    lesson.show(g.d_weights, Style().decimals(4));  // (n × n), a gradient: no heat map
    lesson.show(g.d_scaled_scores, Style().decimals(4));
    lesson.say("The causal mask makes the weights above the diagonal exactly 0, and so are the\n"
               "gradients there: a hidden key gets no blame. Row 0 is all 0 as well: the first\n"
               "token sees only itself, and its weight is 1 whatever its score.");
}

// Step: every gradient entry against its central difference.
void show_gradient_check(Lesson& lesson, const Learning& r) {
    std::vector<TextRow> table;
    for (const FiniteDifferences& c : r.gradient_check)
        table.push_back({c.name, shape_text(c.analytic), std::to_string(c.analytic.size()), largest(c.analytic),
                         fmt::format("{:.1e}", c.max_abs_error), fmt::format("{:.1e}", c.max_relative_error)});
    lesson.say(fmt::format(
        "∂loss/∂w ≈ (loss(w + h) − loss(w − h)) / 2h for every entry w of W_Q, W_K and\n"
        "W_V, with h = {}, on the whole training set at the random start. Relative error\n"
        "= |analytic − numeric| / max(|analytic|, |numeric|, 1% of the largest entry of\n"
        "the three gradients).",
        finite_difference_h));
    lesson.table({"gradient", "shape", "entries", "max |entry|", "max |error|", "max relative error"}, table);
    lesson.say(fmt::format("Largest relative error: {:.1e}. A wrong line in the backward pass gives errors\n"
                           "near 1; float32 rounding alone stays below 1e-2.\n"
                           "\n"
                           "Why h = {}: the formula's own error grows like h², and the loss's rounding is\n"
                           "divided by 2h. Were the loss a float32, it would round by about 1.2e-7 of itself\n"
                           "({:.1e} here), {:.1e} after dividing by 2h = {:g}, and that would be the error of\n"
                           "every difference. It is summed in double, so only the float32 outputs round: the\n"
                           "largest error measured above, h² term and rounding together, is {:.1e}.",
                           r.worst_relative_error, finite_difference_h, 1.2e-7 * r.start.loss, r.float_rounding_over_2h,
                           2.0 * double(finite_difference_h), r.worst_abs_error));
}

// Step: the loss while training, as a table and a chart.
void show_training(Lesson& lesson, const Learning& r, float lr) {
    lesson.say("Each step computes the loss and the gradients on the whole training set, then\n"
               "moves every entry. Plain gradient descent moves w by −lr · ∂loss/∂w; Adam\n"
               "(adam_step in math.cpp) divides a running mean of the gradient by a running mean of\n"
               "its size, so every entry moves about lr per step whether its gradient is large\n"
               "or tiny. The held-out sentences are never trained on.");
    std::vector<TextRow> table;
    for (const TrainingRow& row : r.table)
        table.push_back({std::to_string(row.step), format_number(float(row.loss), 5),
                         format_number(float(row.held_out_loss), 5), format_number(row.weight_on_right, 3)});
    lesson.table({"step", "loss", "held-out loss", "weight on the right noun"}, table);
    std::vector<double> step_numbers, loss_values(r.curve.begin(), r.curve.end());
    for (std::size_t t = 0; t < r.curve.size(); ++t) step_numbers.push_back(double(t));
    const std::size_t last = r.curve.size() - 1;
    ChartOptions chart;
    chart.width = std::min<std::size_t>(60, r.curve.size()), chart.label_width = 9;
    chart.y_text = [](double v) { return format_number(float(v), 5); };
    chart.ticks = {{0.0, "step 0"}, {double(last), fmt::format("step {}", last)}};
    lesson.chart("loss", "Training loss of one attention layer", {"step", false}, {"loss (mean squared error)", true},
                 {{fmt::format("Adam, lr {}", lr), step_numbers, loss_values}}, chart);
}

// Step: the shown sentence's attention before and after, and what each token fetched.
void show_before_after(Lesson& lesson, const Learning& r) {
    const Labels& tokens = r.shown.tokens;
    lesson.show_side_by_side({{r.start_shown.weights, Style().svg()}, {r.trained_shown.weights, Style().svg()}});
    lesson.show(r.trained_shown.output, Style().decimals(2));  // (n × d_v)
    std::vector<TextRow> reading;  // a long --input: the table shows the first and last rows
    for (const Fetched& f : r.fetched)
        reading.push_back({tokens[reading.size()], tokens[f.looks_at], format_number(f.weight, 3), colours[f.output],
                           f.target == d_v ? "—" : colours[f.target]});
    lesson.table({"token", "looks most at", "weight", "output", "target"}, reading);
}

// Step: W_Q · W_Kᵀ, which features look for which, and W_V.
void show_learned(Lesson& lesson, const Learning& r) {
    lesson.say("score(i, j) = q_i · k_j = x_i · (W_Q · W_Kᵀ) · x_jᵀ, so entry (a, b) of the\n"
               "(d_model × d_model) matrix W_Q · W_Kᵀ says how much a query with feature a\n"
               "looks for a key with feature b. Rows: what the asking token has; columns: what\n"
               "the found token has.");
    lesson.show(r.W_QK, Style().decimals(1).svg());
    std::vector<TextRow> looks;
    for (std::size_t a = 0; a < colour_column; ++a)  // the kind and pronoun rows
        looks.push_back({dimensions[a], dimensions[r.looks_for[a]], format_number(r.W_QK(a, r.looks_for[a]), 1)});
    lesson.table({"query feature", "looks most for", "entry"}, looks);
    lesson.say("he looks for male, she for female, it for thing: the relation that similarity\n"
               "could not express. Each noun looks for its own kind, so it finds itself. The\n"
               "colour entries matter less: the kind entries (7 to 10) outweigh them.\n"
               "\n"
               "W_V learned to hand over the colour. Every noun has exactly one kind, so the\n"
               "three kind rows came to add about the same vector to every noun's value, and\n"
               "the colour rows are shifted to make up for it: male + red ≈ the red one-hot.\n"
               "The pronoun rows moved while attention was still spread out, then stopped:\n"
               "once no token looks at a pronoun, no output uses them and their gradient is\n"
               "close to 0.");
    lesson.show(r.trained.W_V, Style().decimals(2));  // (d_model × d_v)
}

// Step: the task, the shown sentence and its targets, and the training set.
void show_task(Lesson& lesson, const Learning& r, std::uint64_t seed) {
    lesson.say("A sentence names a king, a queen and a box in some order, each with a colour\n"
               "drawn at random, then says one to three pronouns. Each token's output must be\n"
               "a colour: a noun's own, and for a pronoun the colour of the noun it stands for\n"
               "(he → king, she → queen, it → box). The pronoun cannot know that colour: it\n"
               "changes from sentence to sentence, so it must be fetched by attention.");
    lesson.show(r.shown.X, Style().decimals(1));       // (n × d_model)
    lesson.show(r.shown.target, Style().decimals(1));  // (n × d_v)
    lesson.say(fmt::format("The training set is {} random sentences like this one (seed {}), and {} more are\n"
                           "held out to test what was learned. The loss is the mean squared error:\n"
                           "loss = (1/B) Σ_sentences (1/n) Σ_i ‖output_i − target_i‖².",
                           training_sentences, seed, held_out_sentences));
}

// Step: attention with W_Q = W_K = I and the perfect W_V.
void show_raw_similarity(Lesson& lesson, const Learning& r) {
    lesson.say("With W_Q = W_K = I the score is the dot product of two embeddings (chapter 01).\n"
               "Give the layer the perfect W_V (it copies the three colour columns), so that only\n"
               "attention can be wrong. \"she\" shares no dimension with \"queen\": their score is\n"
               "0, the same as with every token but herself. And nouns of the same colour find\n"
               "each other: similarity sees what tokens have in common, not what they need.");
    lesson.show(r.raw_shown.weights, Style().svg());
    lesson.say(fmt::format("On the training set: loss {}, and a pronoun puts {} of its weight on its\n"
                           "noun, less than uniform attention would ({}). \"she looks for a female noun\"\n"
                           "is a relation between two different features; only learned projections can\n"
                           "express it.",
                           format_number(float(r.raw_loss), 5), format_number(r.raw_right, 3),
                           format_number(r.uniform, 3)));
}

// Step: the random W_Q, W_K, W_V before training.
void show_random_start(Lesson& lesson, const Learning& r) {
    lesson.say(fmt::format(
        "W_Q, W_K ({} × {}) and W_V ({} × {}) start as normal noise with standard deviation {}.",
        d_model, cols(r.before.W_Q), d_model, d_v, init_std));
    lesson.show(r.before.W_Q, Style().decimals(2));  // (d_model × d_k)
    lesson.say(fmt::format("W_K and W_V are noise like it. The loss on the training set is {}, and a\n"
                           "pronoun puts {} of its weight on its noun.",
                           format_number(float(r.start.loss), 5), format_number(r.start_right, 3)));
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson;  // named and titled by chapter.toml
    const std::string& input = lesson.add_input_option(
        "queen (red), box (blue), king (green), it, she, he: the sentence whose attention is shown, with columns "
        "male,female,thing,he,she,it,red,green,blue");
    refuse_text(lesson, "it needs the named features male … blue; chapter 05 takes --text");
    Flags f;
    add_flags(lesson, f);
    return lesson.run(argc, argv, [&] {
        const Sentence shown = shown_sentence(input);  // read first: a bad file is refused before any step
        // The training, done when the first step reads it (--list-steps does not wait for it).
        Part<Learning>& r = lesson.part<Learning>([&] {
            Learning learned = learn_projections(shown, f.seed, f.d_k, f.steps, f.lr);
            lesson.labels({{"tokens", learned.shown.tokens}, {"first tokens", learned.data[0].tokens},
                           {"dimensions", dimensions}, {"colours", colours}, {"k", numbered("k", f.d_k)}});
            return learned;
        });
        lesson.step("task", "The task: every pronoun fetches the colour of its noun",
                    [&] { show_task(lesson, r(), f.seed); });
        lesson.step("raw-similarity", "Why raw similarity fails", [&] { show_raw_similarity(lesson, r()); });
        lesson.step("random-start", "The layer to learn, at its random start", [&] { show_random_start(lesson, r()); });
        lesson.step("backward-pass", "One backward pass, step by step (the first training sentence)",
                    [&] { show_backward(lesson, r()); });
        lesson.step("gradient-check", "Gradient check: every entry against finite differences",
                    [&] { show_gradient_check(lesson, r()); });
        lesson.step("training", fmt::format("Training: {} steps of Adam, learning rate {}", f.steps, f.lr),
                    [&] { show_training(lesson, r(), f.lr); });
        lesson.step("before-after", "Attention before and after training", [&] { show_before_after(lesson, r()); });
        lesson.step("learned-projections", "What W_Q · W_Kᵀ learned: which features look for which",
                    [&] { show_learned(lesson, r()); });
        lesson.step("checks", "Self-checks",
                    [&] { check_learning(lesson.checks(), r(), lesson.ref("gradient-check"), f.lr); });
        lesson.present();
    });
}
