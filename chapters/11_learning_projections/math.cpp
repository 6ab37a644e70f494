#include "chapters/11_learning_projections/math.hpp"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>

#include <xtensor/xbuilder.hpp>
#include <xtensor/xsort.hpp>

#include "common/attention/mask.hpp"
#include "common/numbers/matmul.hpp"

namespace {

// The kind of row i (its largest of three columns from first_column above 0.5); `kinds` if none.
std::size_t kind_of(const Matrix& X, std::size_t i, std::size_t first_column) {
    std::size_t best = kinds;
    for (std::size_t k = 0; k < kinds; ++k)
        if (X(i, first_column + k) > 0.5f && (best == kinds || X(i, first_column + k) > X(i, first_column + best)))
            best = k;
    return best;
}

// (1/n) Σ_i ‖output_i − target_i‖², summed in double: no rounding beyond the float outputs'.
double sentence_loss(const Matrix& output, const Matrix& target) {
    double sum = 0.0;
    for (std::size_t i = 0; i < output.size(); ++i) {
        const double error = double(output.flat(i)) - double(target.flat(i));
        sum += error * error;
    }
    return sum / static_cast<double>(rows(output));
}

// Central differences, (loss(w + h) − loss(w − h)) / 2h, for every entry of one matrix.
// An entry far below `floor` (1% of the largest entry of all three gradients) is
// compared on that scale: its own relative error would only measure rounding and
// the h² term, which do not shrink with the entry.
FiniteDifferences check_matrix(const std::vector<Sentence>& data, const Weights& w, Matrix Weights::*parameter,
                               const Matrix& analytic, const char* name, double floor) {
    FiniteDifferences r{name, analytic};
    for (std::size_t i = 0; i < analytic.size(); ++i) {
        Weights plus = w, minus = w;
        (plus.*parameter).flat(i) += finite_difference_h;
        (minus.*parameter).flat(i) -= finite_difference_h;
        const double numeric = (loss_and_gradients(data, plus, false).loss - loss_and_gradients(data, minus, false).loss) /
                               (2.0 * double(finite_difference_h));
        const double a = analytic.flat(i), error = std::abs(a - numeric);
        r.max_abs_error = std::max(r.max_abs_error, error);
        r.max_relative_error = std::max(r.max_relative_error, error / std::max({std::abs(a), std::abs(numeric), floor}));
    }
    return r;
}

// The training set one sentence under another, for a check outside the program.
void stack_training_set(Learning& r) {
    std::size_t total = 0;
    for (const Sentence& s : r.data) total += rows(s.X);
    r.X_train = Matrix::from_shape({total, d_model});
    r.target_train = Matrix::from_shape({total, d_v});
    r.lengths = Matrix::from_shape({r.data.size(), 1});
    for (std::size_t b = 0, row = 0; b < r.data.size(); ++b) {
        r.lengths(b, 0) = static_cast<float>(rows(r.data[b].X));
        for (std::size_t i = 0; i < rows(r.data[b].X); ++i, ++row) {
            for (std::size_t d = 0; d < d_model; ++d) r.X_train(row, d) = r.data[b].X(i, d);
            for (std::size_t c = 0; c < d_v; ++c) r.target_train(row, c) = r.data[b].target(i, c);
        }
    }
}

}  // namespace

Sentence label_sentence(Labels tokens, Matrix X) {
    const std::size_t n = rows(X);
    Sentence s{std::move(tokens), std::move(X), xt::zeros<float>({n, d_v}), std::vector<std::size_t>(n, n)};
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t noun_kind = kind_of(s.X, i, 0), pronoun_kind = kind_of(s.X, i, pronoun_column);
        std::size_t found = n, count = 0;
        if (noun_kind != kinds) found = i, count = 1;   // a noun: itself
        else if (pronoun_kind != kinds)                  // a pronoun: the noun of its kind before it
            for (std::size_t j = 0; j < i; ++j)
                if (kind_of(s.X, j, 0) == pronoun_kind) found = j, ++count;
        if (count != 1) continue;  // no noun of that kind, or two: no single right answer
        s.right[i] = found;
        for (std::size_t c = 0; c < d_v; ++c) s.target(i, c) = s.X(found, colour_column + c);
    }
    return s;
}

Sentence make_sentence(const Labels& tokens, const std::vector<std::size_t>& colour_of) {
    Matrix X = xt::zeros<float>({tokens.size(), d_model});
    for (std::size_t i = 0; i < tokens.size(); ++i)
        for (std::size_t k = 0; k < kinds; ++k) {
            if (tokens[i] == nouns[k]) X(i, k) = 1.0f, X(i, colour_column + colour_of[i]) = 1.0f;
            if (tokens[i] == pronouns[k]) X(i, pronoun_column + k) = 1.0f;
        }
    return label_sentence(tokens, X);
}

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

Matrix softmax_backward(const Matrix& weights, const Matrix& d_weights) {
    // For one row p = softmax(s): ∂p_j/∂s_k = p_j (δ_jk − p_k), so
    // ds_k = Σ_j dp_j p_j (δ_jk − p_k) = p_k (dp_k − Σ_j dp_j p_j).
    Matrix d_scores = Matrix::from_shape(weights.shape());  // (n × n)
    // ┌ exercise softmax-backward
    for (std::size_t i = 0; i < rows(weights); ++i) {
        float dot = 0.0f;  // rowsum(dP ⊙ P) for row i
        for (std::size_t j = 0; j < cols(weights); ++j) dot += d_weights(i, j) * weights(i, j);
        for (std::size_t j = 0; j < cols(weights); ++j)
            d_scores(i, j) = weights(i, j) * (d_weights(i, j) - dot);  // 0 where a key is masked (p = 0)
    }
    // └ stub: d_scores = d_weights;
    return d_scores;
}

void adam_step(Matrix& W, const Matrix& g, Matrix& m, Matrix& v, int t, float lr) {
    const float beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-8f;
    // ┌ exercise adam-step
    const float correction1 = 1.0f - std::pow(beta1, static_cast<float>(t));  // m and v start at 0: undo that bias
    const float correction2 = 1.0f - std::pow(beta2, static_cast<float>(t));
    for (std::size_t i = 0; i < W.size(); ++i) {
        m.flat(i) = beta1 * m.flat(i) + (1.0f - beta1) * g.flat(i);                // the gradient's running mean
        v.flat(i) = beta2 * v.flat(i) + (1.0f - beta2) * g.flat(i) * g.flat(i);    // its square's
        W.flat(i) -= lr * (m.flat(i) / correction1) / (std::sqrt(v.flat(i) / correction2) + epsilon);
    }
    // └ stub: W -= lr * g;
}

AttentionForward forward(const Matrix& X, const Weights& w) {
    return attention_forward(X, w.W_Q, w.W_K, w.W_V, causal_mask(rows(X)));
}

LossAndGradients loss_and_gradients(const std::vector<Sentence>& data, const Weights& w, bool with_gradients) {
    LossAndGradients r{0.0, xt::zeros<float>(w.W_Q.shape()), xt::zeros<float>(w.W_K.shape()),
                       xt::zeros<float>(w.W_V.shape())};
    const float B = static_cast<float>(data.size());
    for (const Sentence& s : data) {
        const AttentionForward f = forward(s.X, w);                                  // 1. forward
        r.loss += sentence_loss(f.output, s.target) / double(data.size());           // 2. loss
        if (!with_gradients) continue;
        const Matrix d_output = (f.output - s.target) * (2.0f / (float(rows(s.X)) * B));  // 3. (n × d_v)
        const AttentionGradients g =
            attention_backward(s.X, w.W_Q, w.W_K, w.W_V, f, d_output, softmax_backward);  // 4. backward
        r.d_W_Q += g.d_W_Q, r.d_W_K += g.d_W_K, r.d_W_V += g.d_W_V;                  // 5. sum over sentences
    }
    return r;
}

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

float largest_entry(const Matrix& m) { return xt::amax(xt::abs(m))(); }

float uniform_weight(const std::vector<Sentence>& data) {
    double sum = 0.0;
    std::size_t count = 0;
    for (const Sentence& s : data)
        for (std::size_t i = 0; i < rows(s.X); ++i)
            if (s.right[i] != rows(s.X) && s.right[i] != i) sum += 1.0 / double(i + 1), ++count;
    return count == 0 ? 0.0f : static_cast<float>(sum / static_cast<double>(count));
}

float right_colour_share(const std::vector<Sentence>& data, const Weights& w) {
    std::size_t right = 0, count = 0;
    for (const Sentence& s : data) {
        const Matrix output = forward(s.X, w).output;
        for (std::size_t i = 0; i < rows(s.X); ++i)
            if (s.right[i] != rows(s.X))
                ++count, right += argmax_of_row(output, i) == argmax_of_row(s.target, i) ? 1 : 0;
    }
    return count == 0 ? 1.0f : static_cast<float>(double(right) / double(count));
}

Learning learn_projections(const Sentence& shown, std::uint64_t seed, std::size_t d_k, int steps, float lr) {
    Learning r;
    r.shown = shown;
    // The sentences and the initial weights, all from one seed.
    Random rng(seed);
    for (std::size_t b = 0; b < training_sentences; ++b) r.data.push_back(random_sentence(rng));
    for (std::size_t b = 0; b < held_out_sentences; ++b) r.held_out.push_back(random_sentence(rng));
    r.before = {rng.normal_matrix(d_model, d_k, init_std), rng.normal_matrix(d_model, d_k, init_std),
                rng.normal_matrix(d_model, d_v, init_std)};

    // Raw similarity: W_Q = W_K = I, and the perfect W_V that copies the colour columns.
    Matrix copy_colours = xt::zeros<float>({d_model, d_v});
    for (std::size_t c = 0; c < d_v; ++c) copy_colours(colour_column + c, c) = 1.0f;
    r.raw = {xt::eye<float>(d_model), xt::eye<float>(d_model), copy_colours};
    r.raw_shown = forward(shown.X, r.raw);
    r.raw_loss = loss_and_gradients(r.data, r.raw, false).loss;
    r.raw_right = weight_on_right_key(r.data, r.raw), r.uniform = uniform_weight(r.data);

    // The random start: its loss, its gradients, one sentence's backward pass, the check.
    const Weights& w0 = r.before;
    r.start_shown = forward(shown.X, w0);
    r.start = loss_and_gradients(r.data, w0, true);
    r.start_right = weight_on_right_key(r.data, w0);
    const Sentence& first = r.data[0];
    r.first_forward = forward(first.X, w0);
    const Matrix d_output = (r.first_forward.output - first.target) *
                            (2.0f / (float(rows(first.X)) * float(r.data.size())));  // (n × d_v)
    r.first_backward =
        attention_backward(first.X, w0.W_Q, w0.W_K, w0.W_V, r.first_forward, d_output, softmax_backward);
    const double floor = 1e-2 * double(std::max({xt::amax(xt::abs(r.start.d_W_Q))(), xt::amax(xt::abs(r.start.d_W_K))(),
                                                 xt::amax(xt::abs(r.start.d_W_V))()}));
    r.gradient_check = {check_matrix(r.data, w0, &Weights::W_Q, r.start.d_W_Q, "d_W_Q", floor),
                        check_matrix(r.data, w0, &Weights::W_K, r.start.d_W_K, "d_W_K", floor),
                        check_matrix(r.data, w0, &Weights::W_V, r.start.d_W_V, "d_W_V", floor)};
    for (const FiniteDifferences& c : r.gradient_check)
        r.worst_relative_error = std::max(r.worst_relative_error, c.max_relative_error),
        r.worst_abs_error = std::max(r.worst_abs_error, c.max_abs_error);
    r.float_rounding_over_2h = FLT_EPSILON * r.start.loss / (2.0 * double(finite_difference_h));

    // Training: Adam on the whole training set, `steps` times.
    r.trained = r.before;
    Weights& w = r.trained;
    const auto zeros = [](const Matrix& like) { return Matrix(xt::zeros<float>(like.shape())); };
    Weights m{zeros(w.W_Q), zeros(w.W_K), zeros(w.W_V)}, v = m;  // Adam's running means, 0 at the start
    const int every = std::max(1, steps / 10);
    for (int t = 0; t <= steps; ++t) {
        const LossAndGradients lg = loss_and_gradients(r.data, w, t < steps);
        r.curve.push_back(static_cast<float>(lg.loss));
        if (t % every == 0 || t == steps)
            r.table.push_back({t, lg.loss, loss_and_gradients(r.held_out, w, false).loss, weight_on_right_key(r.data, w)});
        if (t < steps) {
            adam_step(w.W_Q, lg.d_W_Q, m.W_Q, v.W_Q, t + 1, lr);
            adam_step(w.W_K, lg.d_W_K, m.W_K, v.W_K, t + 1, lr);
            adam_step(w.W_V, lg.d_W_V, m.W_V, v.W_V, t + 1, lr);
            if (t == 0) r.after_one_step = w;
        }
    }
    r.loss = Matrix::from_shape({r.curve.size(), 1});
    for (std::size_t t = 0; t < r.curve.size(); ++t) r.loss(t, 0) = r.curve[t];
    r.trained_shown = forward(shown.X, w);
    const std::size_t n = rows(shown.X);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t top = argmax_of_row(r.trained_shown.weights, i);
        r.fetched.push_back({top, r.trained_shown.weights(i, top), argmax_of_row(r.trained_shown.output, i),
                             shown.right[i] == n ? d_v : argmax_of_row(shown.target, i)});
    }
    r.W_QK = matmul_transposed(w.W_Q, w.W_K);  // (d_model × d_k) · (d_k × d_model) → (d_model × d_model)
    for (std::size_t a = 0; a < d_model; ++a) r.looks_for.push_back(argmax_of_row(r.W_QK, a));
    r.right_after = weight_on_right_key(r.data, w), r.right_held_out = weight_on_right_key(r.held_out, w);
    r.colour_after = right_colour_share(r.data, w), r.colour_held_out = right_colour_share(r.held_out, w);
    stack_training_set(r);
    return r;
}
