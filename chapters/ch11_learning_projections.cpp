// Chapter 11 · Learning W_Q, W_K, W_V by gradient descent
//
// Chapter 05 wrote W_Q, W_K and W_V by hand. A real model learns them: it
// starts from random numbers, measures how wrong its outputs are (the loss),
// computes how the loss changes with every entry of every matrix (the
// gradient, by the chain rule run backwards through the forward pass), and
// nudges each entry downhill. Here one attention layer learns a task that raw
// similarity cannot do: every pronoun must fetch the colour of the noun it
// stands for.
//
//   he → the king's colour, she → the queen's colour, it → the box's colour;
//   a noun fetches its own colour. Colours are drawn at random for every
//   sentence, so the answer is only in the sentence.
//
// Shapes: X (n × d_model), one token per row, n = 4…6, d_model = 9;
//         W_Q, W_K (d_model × d_k); W_V (d_model × d_v), d_v = 3 (red, green, blue);
//         weights (n × n); output, target (n × d_v); B sentences in the training set.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/math/adam.hpp"
#include "common/math/attention_backward.hpp"
#include "common/lesson/elide.hpp"
#include "common/math/input_error.hpp"
#include "common/lesson/labelled_csv.hpp"
#include "common/lesson/lesson.hpp"
#include "common/math/mask.hpp"
#include "common/math/matmul.hpp"
#include "common/math/random.hpp"
#include "common/lesson/text_table.hpp"
#include "common/lesson/side_by_side.hpp"

namespace {

// ── The toy language ────────────────────────────────────────────────────────
// Nine named embedding dimensions: the kind of a noun, the three pronouns, and
// the colour a noun has in this sentence.
const Labels dimensions = {"male", "female", "thing", "he", "she", "it", "red", "green", "blue"};
const Labels nouns = {"king", "queen", "box"};  // kinds 0, 1, 2: male, female, thing
const Labels pronouns = {"he", "she", "it"};    // kinds 0, 1, 2 as well
const Labels colours = {"red", "green", "blue"};  // the d_v output slots
constexpr std::size_t kinds = 3;
constexpr std::size_t d_model = 9;
constexpr std::size_t d_v = 3;
constexpr std::size_t pronoun_column = 3;  // "he" is column 3 of X
constexpr std::size_t colour_column = 6;   // "red" is column 6 of X
constexpr std::size_t training_sentences = 64;
constexpr std::size_t held_out_sentences = 64;
constexpr float init_std = 0.3f;           // small: the layer starts close to uniform attention

struct Sentence {
    Labels tokens;                  // n labels
    Matrix X;                       // (n × d_model)
    Matrix target;                  // (n × d_v): the one-hot of the colour each token must fetch
    std::vector<std::size_t> right; // right[i]: the token that row i must look at (n if none)
};

// The kind of row i read off its embedding (its largest kind or pronoun
// column above 0.5); `kinds` when it has none.
std::size_t kind_of(const Matrix& X, std::size_t i, std::size_t first_column) {
    std::size_t best = kinds;
    for (std::size_t k = 0; k < kinds; ++k)
        if (X(i, first_column + k) > 0.5f && (best == kinds || X(i, first_column + k) > X(i, first_column + best)))
            best = k;
    return best;
}

// Which token each row must look at (a noun: itself; a pronoun: the one noun
// of its kind), and that noun's colour as the target.
Sentence label_sentence(Labels tokens, Matrix X) {
    const std::size_t n = rows(X);
    Sentence s{std::move(tokens), std::move(X), xt::zeros<float>({n, d_v}), std::vector<std::size_t>(n, n)};
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t noun_kind = kind_of(s.X, i, 0), pronoun_kind = kind_of(s.X, i, pronoun_column);
        std::size_t found = n, count = 0;
        if (noun_kind != kinds) found = i, count = 1;
        else if (pronoun_kind != kinds)
            for (std::size_t j = 0; j < i; ++j)  // only the tokens before it: the mask hides the rest
                if (kind_of(s.X, j, 0) == pronoun_kind) found = j, ++count;
        if (count != 1) continue;  // no noun of that kind, or two: no single right answer
        s.right[i] = found;
        for (std::size_t c = 0; c < d_v; ++c) s.target(i, c) = s.X(found, colour_column + c);
    }
    return s;
}

// A noun is 1 in its kind and 1 in its colour; a pronoun is 1 in its own
// column. So "she" and "queen" share no dimension: their dot product is 0.
Sentence make_sentence(const Labels& tokens, const std::vector<std::size_t>& colour_of) {
    Matrix X = xt::zeros<float>({tokens.size(), d_model});
    for (std::size_t i = 0; i < tokens.size(); ++i)
        for (std::size_t k = 0; k < kinds; ++k) {
            if (tokens[i] == nouns[k]) X(i, k) = 1.0f, X(i, colour_column + colour_of[i]) = 1.0f;
            if (tokens[i] == pronouns[k]) X(i, pronoun_column + k) = 1.0f;
        }
    return label_sentence(tokens, X);
}

// A random sentence: the three nouns in random order, each with a random
// colour, then one to three pronouns, repeats allowed ("she … she").
Sentence random_sentence(Random& rng) {
    const auto pick = [&rng](std::size_t count) { return static_cast<std::size_t>(rng.next_u64() % count); };
    Labels tokens = nouns;
    for (std::size_t i = tokens.size() - 1; i > 0; --i) std::swap(tokens[i], tokens[pick(i + 1)]);  // Fisher–Yates
    std::vector<std::size_t> colour_of;
    for (std::size_t k = 0; k < kinds; ++k) colour_of.push_back(pick(colours.size()));
    const std::size_t count = 1 + pick(3);
    for (std::size_t k = 0; k < count; ++k) tokens.push_back(pronouns[pick(kinds)]), colour_of.push_back(0);
    return make_sentence(tokens, colour_of);
}

// ── Loss ────────────────────────────────────────────────────────────────────
// loss = mean over the B sentences of (1/n) Σ_i ‖output_i − target_i‖²
// d loss / d output = 2 (output − target) / (n · B)
struct Weights {
    Matrix W_Q, W_K, W_V;
};

// The layer as this chapter uses it: a causal mask lets token i look only at
// tokens 0…i, as in a model that reads left to right. A pronoun can see the
// nouns before it; a noun cannot see the pronouns after it.
AttentionForward forward(const Matrix& X, const Weights& w) {
    return attention_forward(X, w.W_Q, w.W_K, w.W_V, causal_mask(rows(X)));
}

struct LossAndGradients {
    double loss = 0.0;
    Matrix d_W_Q, d_W_K, d_W_V;
};

// Summed in double: the float outputs are what they are, but the sum of their
// squared errors adds no rounding of its own (it matters for step 5).
double sentence_loss(const Matrix& output, const Matrix& target) {
    double sum = 0.0;
    for (std::size_t i = 0; i < output.size(); ++i) {
        const double error = double(output.flat(i)) - double(target.flat(i));
        sum += error * error;
    }
    return sum / static_cast<double>(rows(output));
}

LossAndGradients loss_and_gradients(const std::vector<Sentence>& data, const Weights& w, bool with_gradients) {
    LossAndGradients r;
    r.d_W_Q = xt::zeros<float>(w.W_Q.shape());
    r.d_W_K = xt::zeros<float>(w.W_K.shape());
    r.d_W_V = xt::zeros<float>(w.W_V.shape());
    const float batch = static_cast<float>(data.size());
    for (const Sentence& s : data) {
        const AttentionForward f = forward(s.X, w);
        r.loss += sentence_loss(f.output, s.target) / double(data.size());
        if (!with_gradients) continue;
        const Matrix d_output = (f.output - s.target) * (2.0f / (static_cast<float>(rows(s.X)) * batch));  // (n × d_v)
        const AttentionGradients g = attention_backward(s.X, w.W_Q, w.W_K, w.W_V, f, d_output);
        r.d_W_Q += g.d_W_Q;
        r.d_W_K += g.d_W_K;
        r.d_W_V += g.d_W_V;
    }
    return r;
}

// The mean weight that the pronoun rows put on their noun.
float weight_on_right_key(const std::vector<Sentence>& data, const Weights& w) {
    double sum = 0.0;
    std::size_t count = 0;
    for (const Sentence& s : data) {
        const Matrix weights = forward(s.X, w).weights;
        for (std::size_t i = 0; i < rows(s.X); ++i)
            if (s.right[i] != rows(s.X) && s.right[i] != i) sum += weights(i, s.right[i]), ++count;
    }
    return count == 0 ? 0.0f : static_cast<float>(sum / static_cast<double>(count));
}

// What uniform attention would put on the noun: the mean of 1/(i + 1) over the
// pronoun rows (row i sees i + 1 keys).
float uniform_weight(const std::vector<Sentence>& data) {
    double sum = 0.0;
    std::size_t count = 0;
    for (const Sentence& s : data)
        for (std::size_t i = 0; i < rows(s.X); ++i)
            if (s.right[i] != rows(s.X) && s.right[i] != i) sum += 1.0 / double(i + 1), ++count;  // row i sees i + 1 keys
    return count == 0 ? 0.0f : static_cast<float>(sum / static_cast<double>(count));
}

// ── Printing helpers ────────────────────────────────────────────────────────
// A 10-row plot of log10(loss) against the step, one column per sampled step.
std::string loss_chart(const std::vector<float>& loss, std::size_t width = 60, std::size_t height = 10) {
    const std::size_t columns = std::min(width, loss.size());
    std::vector<double> y(columns);
    for (std::size_t c = 0; c < columns; ++c) {
        const std::size_t t = columns == 1 ? 0 : c * (loss.size() - 1) / (columns - 1);
        y[c] = std::log10(std::max(loss[t], 1e-12f));
    }
    const double top = *std::max_element(y.begin(), y.end()), bottom = *std::min_element(y.begin(), y.end());
    const double span = std::max(top - bottom, 1e-9);
    std::vector<std::string> grid(height, std::string());
    for (std::size_t r = 0; r < height; ++r)
        for (std::size_t c = 0; c < columns; ++c) {
            const auto row = static_cast<std::size_t>(std::lround((top - y[c]) / span * double(height - 1)));
            grid[r] += row == r ? "•" : " ";
        }
    std::string out;
    for (std::size_t r = 0; r < height; ++r) {
        const double value = std::pow(10.0, top - span * double(r) / double(height - 1));
        const std::string label = (r == 0 || r == height - 1 || r == (height - 1) / 2) ? fmt::format("{:9.5f}", value)
                                                                                       : std::string(9, ' ');
        std::string line = fmt::format("{} │{}", label, grid[r]);
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += line + "\n";
    }
    std::string axis;
    for (std::size_t c = 0; c < columns; ++c) axis += "─";
    out += fmt::format("{} └{}\n", std::string(9, ' '), axis);
    out += fmt::format("{}  step 0{:>{}}\n", std::string(9, ' '), fmt::format("step {}", loss.size() - 1),
                       columns > 6 ? columns - 6 : 1);
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch11_learning_projections", "Chapter 11 · Learning W_Q, W_K, W_V by gradient descent");
    const std::string& input = lesson.add_input_option(
        "queen (red), box (blue), king (green), it, she, he: the sentence whose attention is shown, with columns "
        "male,female,thing,he,she,it,red,green,blue");
    int steps = 150;
    float lr = 0.05f;
    std::uint64_t seed = 11;
    std::size_t d_k = 3;
    lesson.cli()
        .add_option("--steps", steps, "training steps (Adam updates on the whole training set)")
        ->check(CLI::Range(1, 5000))
        ->capture_default_str();
    lesson.cli()
        .add_option("--lr", lr, "Adam's learning rate: about how far each entry moves per step")
        ->check(CLI::Range(1e-4f, 1.0f))
        ->capture_default_str();
    lesson.cli()
        .add_option("--seed", seed, "seed of the sentences and of the random initial weights")
        ->check(CLI::Validator(
            [](std::string& text) {
                return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos
                           ? std::string()
                           : std::string("expected a whole number ≥ 0");
            },
            ""))
        ->capture_default_str();
    lesson.cli()
        .add_option("--d-k", d_k, "width of the queries and keys (columns of W_Q and W_K)")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();

    return lesson.run(argc, argv, [&] {
        // The sentence whose attention the lesson shows.
        Sentence shown = make_sentence({"queen", "box", "king", "it", "she", "he"}, {0, 2, 1, 0, 0, 0});
        if (!input.empty()) {
            const LabelledMatrix table = read_labelled_csv(input);
            require_width(table, d_model, fmt::format("this chapter's embeddings ({})", fmt::join(dimensions, ",")));
            if (table.columns != dimensions)
                throw InputError(fmt::format("{}: the columns must be named {}", input, fmt::join(dimensions, ",")));
            shown = label_sentence(table.rows, table.values);
        }
        const Labels& tokens = shown.tokens;
        const std::size_t n = rows(shown.X);

        // The sentences and the initial weights, all from one seed.
        Random rng(seed);
        std::vector<Sentence> data, held_out;
        for (std::size_t b = 0; b < training_sentences; ++b) data.push_back(random_sentence(rng));
        for (std::size_t b = 0; b < held_out_sentences; ++b) held_out.push_back(random_sentence(rng));
        Weights w{rng.normal_matrix(d_model, d_k, init_std), rng.normal_matrix(d_model, d_k, init_std),
                  rng.normal_matrix(d_model, d_v, init_std)};
        const Weights before = w;
        Labels k_columns;
        for (std::size_t c = 0; c < d_k; ++c) k_columns.push_back(fmt::format("k{}", c));

        // ── Step 1: the task ────────────────────────────────────────────────
        lesson.step("The task: every pronoun fetches the colour of its noun");
        lesson.say(
            "A sentence names a king, a queen and a box in some order, each with a colour\n"
            "drawn at random, then says one to three pronouns. Each token's output must be\n"
            "a colour: a noun's own, and for a pronoun the colour of the noun it stands for\n"
            "(he → king, she → queen, it → box). The pronoun cannot know that colour: it\n"
            "changes from sentence to sentence, so it must be fetched by attention.");
        lesson.show("X", "one token per row", shown.X, tokens, dimensions, 1);              // (n × d_model)
        lesson.show("target", "the colour each token must fetch", shown.target, tokens, colours, 1);  // (n × d_v)
        lesson.say(fmt::format(
            "\nThe training set is {} random sentences like this one (seed {}), and {} more are\n"
            "held out to test what was learned. The loss is the mean squared error:\n"
            "loss = (1/B) Σ_sentences (1/n) Σ_i ‖output_i − target_i‖².",
            training_sentences, seed, held_out_sentences));

        // ── Step 2: raw similarity fails ────────────────────────────────────
        lesson.step("Why raw similarity fails");
        const Matrix identity = xt::eye<float>(d_model);  // W_Q = W_K = I: queries and keys are the embeddings
        Matrix copy_colours = xt::zeros<float>({d_model, d_v});  // the perfect W_V: copies the colour columns
        for (std::size_t c = 0; c < d_v; ++c) copy_colours(colour_column + c, c) = 1.0f;
        const Weights raw{identity, identity, copy_colours};
        const AttentionForward raw_shown = forward(shown.X, raw);
        lesson.say(
            "With W_Q = W_K = I the score is the dot product of two embeddings (chapter 01).\n"
            "Give the layer the perfect W_V (it copies the three colour columns), so that only\n"
            "attention can be wrong. \"she\" shares no dimension with \"queen\": their score is\n"
            "0, the same as with every token but herself. And nouns of the same colour find\n"
            "each other: similarity sees what tokens have in common, not what they need.");
        lesson.show("weights_raw", "softmax(X · Xᵀ / √d_model)", raw_shown.weights, tokens, tokens);  // (n × n)
        const double raw_loss = loss_and_gradients(data, raw, false).loss;
        const float raw_right = weight_on_right_key(data, raw), uniform = uniform_weight(data);
        lesson.say(fmt::format(
            "\nOn the training set: loss {:.5f}, and a pronoun puts {:.3f} of its weight on its\n"
            "noun, less than uniform attention would ({:.3f}). \"she looks for a female noun\"\n"
            "is a relation between two different features; only learned projections can\n"
            "express it.",
            raw_loss, raw_right, uniform));

        // ── Step 3: the random start ────────────────────────────────────────
        lesson.step("The layer to learn, at its random start");
        lesson.say(fmt::format(
            "W_Q, W_K ({} × {}) and W_V ({} × {}) start as normal noise with standard deviation {}.",
            d_model, d_k, d_model, d_v, init_std));
        lesson.show("W_Q_before", "random", before.W_Q, dimensions, k_columns, 2);  // (d_model × d_k)
        lesson.keep_for_dump("W_K_before", before.W_K);                          // (d_model × d_k)
        lesson.keep_for_dump("W_V_before", before.W_V);                          // (d_model × d_v)
        const AttentionForward start_shown = forward(shown.X, w);
        const LossAndGradients start = loss_and_gradients(data, w, true);
        lesson.say(fmt::format(
            "\nW_K and W_V are noise like it. The loss on the training set is {:.5f}, and a\n"
            "pronoun puts {:.3f} of its weight on its noun.",
            start.loss, weight_on_right_key(data, w)));

        // ── Step 4: one backward pass ───────────────────────────────────────
        lesson.step("One backward pass, step by step (the first training sentence)");
        const Sentence& first = data[0];
        const AttentionForward f = forward(first.X, w);
        const Matrix d_output = (f.output - first.target) *
                                (2.0f / (static_cast<float>(rows(first.X)) * static_cast<float>(data.size())));  // (n × d_v)
        const AttentionGradients g = attention_backward(first.X, w.W_Q, w.W_K, w.W_V, f, d_output);
        lesson.say(fmt::format(
            "The chain rule, run from the loss back to the weights, for the sentence\n"
            "\"{}\". Each gradient has the shape of what it is the gradient of,\n"
            "and each line undoes one line of the forward pass (common/math/attention_backward.cpp).",
            fmt::join(first.tokens, " ")));
        const auto shape = [](const Matrix& m) { return fmt::format("({} × {})", rows(m), cols(m)); };
        const auto largest = [](const Matrix& m) { return fmt::format("{:.5f}", double(xt::amax(xt::abs(m))())); };
        fmt::print("\n{}",
                   format_table({"forward line", "backward line", "shape", "max |entry|"},
                                {{"loss = Σ ‖output − target‖² / (nB)", "d_output = 2 (output − target) / (nB)",
                                  shape(g.d_output), largest(g.d_output)},
                                 {"output = weights · V", "d_weights = d_output · Vᵀ", shape(g.d_weights),
                                  largest(g.d_weights)},
                                 {"", "d_V = weightsᵀ · d_output", shape(g.d_V), largest(g.d_V)},
                                 {"weights = softmax_rows(scaled_scores)", "d_scaled_scores = P ⊙ (dP − rowsum(dP ⊙ P))",
                                  shape(g.d_scaled_scores), largest(g.d_scaled_scores)},
                                 {"scaled_scores = scores / √d_k", "d_scores = d_scaled_scores / √d_k", shape(g.d_scores),
                                  largest(g.d_scores)},
                                 {"scores = Q · Kᵀ", "d_Q = d_scores · K", shape(g.d_Q), largest(g.d_Q)},
                                 {"", "d_K = d_scoresᵀ · Q", shape(g.d_K), largest(g.d_K)},
                                 {"Q = X · W_Q", "d_W_Q = Xᵀ · d_Q", shape(g.d_W_Q), largest(g.d_W_Q)},
                                 {"K = X · W_K", "d_W_K = Xᵀ · d_K", shape(g.d_W_K), largest(g.d_W_K)},
                                 {"V = X · W_V", "d_W_V = Xᵀ · d_V", shape(g.d_W_V), largest(g.d_W_V)}}));
        lesson.say(
            "\nThe softmax line is the one to understand (P = weights, dP = d_weights). Row by\n"
            "row, p = softmax(s) has the Jacobian ∂p_j/∂s_k = p_j (δ_jk − p_k), so\n"
            "ds_k = p_k (dp_k − Σ_j dp_j p_j): a score goes up when its weight's gradient is\n"
            "below the row's weighted mean (the loss wants that weight to grow), and each row\n"
            "of d_scaled_scores sums to 0, because adding one number to a whole row of\n"
            "scores changes no weight.");
        lesson.show("d_weights", "d_output · Vᵀ", g.d_weights, first.tokens, first.tokens, 4,
                    Picture::none);  // (n × n), a gradient: no heat map
        lesson.show("d_scaled_scores", "P ⊙ (dP − rowsum(dP ⊙ P))", g.d_scaled_scores, first.tokens, first.tokens,
                    4);  // (n × n)
        lesson.say(
            "\nThe causal mask makes the weights above the diagonal exactly 0, and so are the\n"
            "gradients there: a hidden key gets no blame. Row 0 is all 0 as well: the first\n"
            "token sees only itself, and its weight is 1 whatever its score.");

        // ── Step 5: gradient check ──────────────────────────────────────────
        lesson.step("Gradient check: every entry against finite differences");
        // Central differences in float32: the error of the formula grows like h²
        // and the rounding of the float outputs (about 1e-7 of the loss) is divided
        // by 2h; h = 1e-2 keeps both near 1e-7, far below the gradients checked.
        const float h = 1e-2f;
        double worst = 0.0;
        std::vector<TextRow> check_rows;
        const std::array<std::pair<const char*, Matrix Weights::*>, 3> parameters{
            {{"W_Q", &Weights::W_Q}, {"W_K", &Weights::W_K}, {"W_V", &Weights::W_V}}};
        const std::array<const Matrix*, 3> analytic{&start.d_W_Q, &start.d_W_K, &start.d_W_V};
        for (std::size_t p = 0; p < parameters.size(); ++p) {
            const Matrix& grad = *analytic[p];
            // An entry far smaller than the matrix's largest is compared on that scale:
            // its relative error would only measure float rounding.
            const double floor = 1e-2 * double(xt::amax(xt::abs(grad))());
            double matrix_worst = 0.0, matrix_abs = 0.0;
            for (std::size_t i = 0; i < grad.size(); ++i) {
                Weights plus = w, minus = w;
                (plus.*parameters[p].second).flat(i) += h;
                (minus.*parameters[p].second).flat(i) -= h;
                const double numeric = (loss_and_gradients(data, plus, false).loss -
                                        loss_and_gradients(data, minus, false).loss) / (2.0 * double(h));
                const double a = grad.flat(i);
                matrix_abs = std::max(matrix_abs, std::abs(a - numeric));
                matrix_worst =
                    std::max(matrix_worst, std::abs(a - numeric) / std::max({std::abs(a), std::abs(numeric), floor}));
            }
            worst = std::max(worst, matrix_worst);
            check_rows.push_back({fmt::format("d_{}", parameters[p].first), shape(grad), std::to_string(grad.size()),
                                  largest(grad), fmt::format("{:.1e}", matrix_abs), fmt::format("{:.1e}", matrix_worst)});
        }
        lesson.say(fmt::format(
            "∂loss/∂w ≈ (loss(w + h) − loss(w − h)) / 2h for every entry w of W_Q, W_K and\n"
            "W_V, with h = {}, on the whole training set at the random start. Relative error\n"
            "= |analytic − numeric| / max(|analytic|, |numeric|, 1% of the largest entry).",
            h));
        fmt::print("\n{}", format_table({"gradient", "shape", "entries", "max |entry|", "max |error|", "max relative error"},
                                        check_rows));
        lesson.say(fmt::format(
            "\nLargest relative error: {:.1e}. A wrong line in the backward pass gives errors\n"
            "near 1; float32 rounding alone stays below 1e-2.",
            worst));

        // ── Step 6: training ────────────────────────────────────────────────
        lesson.step(fmt::format("Training: {} steps of Adam, learning rate {}", steps, lr));
        lesson.say(
            "Each step computes the loss and the gradients on the whole training set, then\n"
            "moves every entry. Plain gradient descent moves w by −lr · ∂loss/∂w; Adam\n"
            "(common/math/adam.hpp) divides a running mean of the gradient by a running mean of\n"
            "its size, so every entry moves about lr per step whether its gradient is large\n"
            "or tiny. The held-out sentences are never trained on.\n");
        Adam adam(lr);
        std::vector<float> curve;  // the loss before each step, then after the last
        std::vector<TextRow> table;
        const int every = std::max(1, steps / 10);
        for (int t = 0; t <= steps; ++t) {
            const LossAndGradients lg = loss_and_gradients(data, w, t < steps);
            curve.push_back(static_cast<float>(lg.loss));
            if (t % every == 0 || t == steps)
                table.push_back({std::to_string(t), fmt::format("{:.5f}", lg.loss),
                                 fmt::format("{:.5f}", loss_and_gradients(held_out, w, false).loss),
                                 fmt::format("{:.3f}", weight_on_right_key(data, w))});
            if (t < steps) adam.step({&w.W_Q, &w.W_K, &w.W_V}, {&lg.d_W_Q, &lg.d_W_K, &lg.d_W_V});
        }
        fmt::print("{}", format_table({"step", "loss", "held-out loss", "weight on the right noun"}, table));
        fmt::print("\nloss (log scale)\n{}", loss_chart(curve));
        Matrix loss = Matrix::from_shape({curve.size(), 1});  // (steps + 1 × 1)
        for (std::size_t t = 0; t < curve.size(); ++t) loss(t, 0) = curve[t];
        lesson.keep_for_dump("loss", loss);
        std::vector<double> step_numbers, loss_values;
        for (std::size_t t = 0; t < curve.size(); ++t) step_numbers.push_back(double(t)), loss_values.push_back(curve[t]);
        lesson.plot("loss", "Training loss of one attention layer", {"step", false}, {"loss (mean squared error)", true},
                    {{fmt::format("Adam, lr {}", lr), step_numbers, loss_values}});

        // ── Step 7: attention before and after ──────────────────────────────
        lesson.step("Attention before and after training");
        const AttentionForward trained = forward(shown.X, w);
        fmt::print("{}", side_by_side({format_matrix("weights_before", "at the start", start_shown.weights, tokens,
                                                     tokens, lesson.style()),
                                       format_matrix("weights", "after training", trained.weights, tokens, tokens,
                                                     lesson.style())},
                                      200));
        lesson.keep_for_dump("X", shown.X);
        lesson.keep_for_dump("weights_before", start_shown.weights);
        lesson.keep_for_dump("weights", trained.weights);
        lesson.picture("weights_before", "at the start", start_shown.weights, tokens, tokens);
        lesson.picture("weights", "after training", trained.weights, tokens, tokens);
        lesson.show("output", "weights · X · W_V", trained.output, tokens, colours, 2);  // (n × d_v)
        std::vector<TextRow> reading;
        for (const std::size_t i : elided_indices(n)) {  // a long --input: the first and last rows, like the matrices
            if (i == elided) {
                reading.push_back({"⋮"});
                continue;
            }
            const std::size_t top = argmax_of_row(trained.weights, i);
            reading.push_back({tokens[i], tokens[top], fmt::format("{:.3f}", trained.weights(i, top)),
                               colours[argmax_of_row(trained.output, i)],
                               shown.right[i] == n ? "—" : colours[argmax_of_row(shown.target, i)]});
        }
        fmt::print("\n{}", format_table({"token", "looks most at", "weight", "output", "target"}, reading));

        // ── Step 8: what the projections learned ────────────────────────────
        lesson.step("What W_Q · W_Kᵀ learned: which features look for which");
        lesson.say(
            "score(i, j) = q_i · k_j = x_i · (W_Q · W_Kᵀ) · x_jᵀ, so entry (a, b) of the\n"
            "(d_model × d_model) matrix W_Q · W_Kᵀ says how much a query with feature a\n"
            "looks for a key with feature b. Rows: what the asking token has; columns: what\n"
            "the found token has.");
        const Matrix W_QK = matmul_transposed(w.W_Q, w.W_K);  // (d_model × d_k) · (d_k × d_model) → (d_model × d_model)
        lesson.show("W_QK", "W_Q · W_Kᵀ", W_QK, dimensions, dimensions, 1, Picture::heat_map);
        std::vector<TextRow> looks;
        for (std::size_t a = 0; a < colour_column; ++a) {  // the kind and pronoun rows
            const std::size_t top = argmax_of_row(W_QK, a);
            looks.push_back({dimensions[a], dimensions[top], fmt::format("{:.1f}", W_QK(a, top))});
        }
        fmt::print("\n{}", format_table({"query feature", "looks most for", "entry"}, looks));
        lesson.say(
            "\nhe looks for male, she for female, it for thing: the relation that similarity\n"
            "could not express. Each noun looks for its own kind, so it finds itself. The\n"
            "colour entries matter less: the kind entries (7 to 10) outweigh them.\n"
            "\n"
            "W_V learned to hand over the colour. Every noun has exactly one kind, so the\n"
            "three kind rows came to add about the same vector to every noun's value, and\n"
            "the colour rows are shifted to make up for it: male + red ≈ the red one-hot.\n"
            "The pronoun rows moved while attention was still spread out, then stopped:\n"
            "once no token looks at a pronoun, no output uses them and their gradient is\n"
            "close to 0.");
        lesson.show("W_V", "learned", w.W_V, dimensions, colours, 2);  // (d_model × d_v)
        lesson.keep_for_dump("W_Q", w.W_Q);
        lesson.keep_for_dump("W_K", w.W_K);

        // The training set, for a check outside this program: the sentences one
        // under another, and their lengths.
        std::size_t total = 0;
        for (const Sentence& s : data) total += rows(s.X);
        Matrix X_train = Matrix::from_shape({total, d_model});   // (Σn × d_model)
        Matrix target_train = Matrix::from_shape({total, d_v});  // (Σn × d_v)
        Matrix lengths = Matrix::from_shape({data.size(), 1});   // (B × 1)
        for (std::size_t b = 0, r = 0; b < data.size(); ++b) {
            lengths(b, 0) = static_cast<float>(rows(data[b].X));
            for (std::size_t i = 0; i < rows(data[b].X); ++i, ++r) {
                for (std::size_t d = 0; d < d_model; ++d) X_train(r, d) = data[b].X(i, d);
                for (std::size_t c = 0; c < d_v; ++c) target_train(r, c) = data[b].target(i, c);
            }
        }
        lesson.keep_for_dump("X_train", X_train);
        lesson.keep_for_dump("target_train", target_train);
        lesson.keep_for_dump("lengths", lengths);

        // ── Self-checks ─────────────────────────────────────────────────────
        lesson.step("Self-checks");
        auto& check = lesson.checks();
        check.close("every analytic gradient matches its central difference (relative error)", worst, 1e-2);
        // The softmax line against its explicit Jacobian J = diag(p) − p pᵀ, in double.
        double jacobian_error = 0.0;
        for (std::size_t i = 0; i < rows(f.weights); ++i)
            for (std::size_t k = 0; k < cols(f.weights); ++k) {
                double ds = 0.0;
                for (std::size_t j = 0; j < cols(f.weights); ++j)
                    ds += double(g.d_weights(i, j)) * double(f.weights(i, j)) *
                          ((j == k ? 1.0 : 0.0) - double(f.weights(i, k)));
                jacobian_error = std::max(jacobian_error, std::abs(ds - double(g.d_scaled_scores(i, k))));
            }
        check.close("d_scaled_scores = d_weights · J row by row, J = diag(p) − p pᵀ", jacobian_error, 1e-7);
        bool hidden_zero = true;
        for (std::size_t i = 0; i < rows(f.weights); ++i)
            for (std::size_t j = i + 1; j < cols(f.weights); ++j) hidden_zero = hidden_zero && g.d_scaled_scores(i, j) == 0.0f;
        check.that("the keys hidden by the causal mask get exactly 0 gradient", hidden_zero);
        // The final loss again, by loops in double: output_i = Σ_j softmax_j(q_i·k_j/√d_k) v_j.
        double loop_loss = 0.0;
        for (const Sentence& s : data) {
            const std::size_t len = rows(s.X);
            const Matrix Q = matmul(s.X, w.W_Q), K = matmul(s.X, w.W_K), V = matmul(s.X, w.W_V);
            for (std::size_t i = 0; i < len; ++i) {
                std::vector<double> e(i + 1, 0.0);
                double top = -1e300, z = 0.0;
                for (std::size_t j = 0; j <= i; ++j) {  // causal: keys 0…i
                    for (std::size_t c = 0; c < d_k; ++c) e[j] += double(Q(i, c)) * double(K(j, c));
                    e[j] /= std::sqrt(double(d_k));
                    top = std::max(top, e[j]);
                }
                for (auto& x : e) z += (x = std::exp(x - top));
                for (std::size_t c = 0; c < d_v; ++c) {
                    double out = 0.0;
                    for (std::size_t j = 0; j <= i; ++j) out += e[j] / z * double(V(j, c));
                    loop_loss += (out - s.target(i, c)) * (out - s.target(i, c)) / double(len * data.size());
                }
            }
        }
        check.close("the final loss, recomputed by loops in double", std::abs(loop_loss - double(curve.back())), 1e-5);
        check.that(fmt::format("training divided the loss by at least 50 ({:.5f} → {:.5f})", curve.front(), curve.back()),
                   curve.back() * 50.0f <= curve.front());
        const float right_after = weight_on_right_key(data, w), right_held_out = weight_on_right_key(held_out, w);
        check.that(fmt::format("after training a pronoun puts at least 0.9 of its weight on its noun ({:.3f}; held "
                               "out: {:.3f})",
                               right_after, right_held_out),
                   right_after >= 0.9f && right_held_out >= 0.9f);
        check.that(fmt::format("raw similarity puts less on it than uniform attention ({:.3f} < {:.3f})", raw_right,
                               uniform),
                   raw_right < uniform);
    });
}
