// Chapter 11 · the mathematics: learning W_Q, W_K, W_V by gradient descent.
//
// One causal attention layer, its loss, and the chain rule run backwards
// (common/attention/attention_backward.hpp holds the passes; math.cpp adds the softmax's
// backward line, the loss, the gradient check, Adam and the training loop):
//
//   output = softmax(X·W_Q · (X·W_K)ᵀ / √d_k + mask) · X·W_V        (n × d_v)
//   loss   = (1/B) Σ_sentences (1/n) Σ_i ‖output_i − target_i‖²
//   d_output = 2 (output − target) / (n · B)                         (n × d_v)
//   ∂loss/∂w ≈ (loss(w + h) − loss(w − h)) / 2h                      the check
//   W ← W − lr · m̂ / (√v̂ + ε)                                        Adam
//
// The task: every pronoun fetches the colour of the noun it stands for
// (he → king, she → queen, it → box); a noun fetches its own colour. Colours
// are drawn at random per sentence, so the answer is only in the sentence.
//
// Shapes: X (n × d_model), n = 4…6, d_model = 9; W_Q, W_K (d_model × d_k);
// W_V (d_model × d_v), d_v = 3 (red, green, blue); weights (n × n);
// output, target (n × d_v); B sentences in the training set.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/attention/attention_backward.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"
#include "common/numbers/random.hpp"

// Nine named embedding dimensions: the kind of a noun, the three pronouns, and
// the colour a noun has in this sentence.
inline const Labels dimensions = {"male", "female", "thing", "he", "she", "it", "red", "green", "blue"};
inline const Labels nouns = {"king", "queen", "box"};      // kinds 0, 1, 2: male, female, thing
inline const Labels pronouns = {"he", "she", "it"};        // kinds 0, 1, 2 as well
inline const Labels colours = {"red", "green", "blue"};    // the d_v output slots
constexpr std::size_t kinds = 3, d_model = 9, d_v = 3;
constexpr std::size_t pronoun_column = 3;                  // "he" is column 3 of X
constexpr std::size_t colour_column = 6;                   // "red" is column 6 of X
constexpr std::size_t training_sentences = 64, held_out_sentences = 64;
constexpr float init_std = 0.3f;                           // small: close to uniform attention
constexpr float finite_difference_h = 1e-2f;               // the step of the gradient check
// A run whose final training loss is above this has not converged (a poor start,
// too few steps, d_k = 1): what it learned is not checked. Below it, every token of
// the training set outputs its colour: a wrong one (its target's entry not the
// largest) costs at least 0.5 / (n · B) ≥ 0.5 / (6 · 64) = 1.3e-3 of loss.
constexpr double converged_loss = 1e-3;

struct Sentence {
    Labels tokens;                   // n labels
    Matrix X;                        // (n × d_model)
    Matrix target;                   // (n × d_v): the one-hot colour each token must fetch
    std::vector<std::size_t> right;  // right[i]: the token row i must look at (n if none)
};

// Which token each row must look at and its colour, read off the embeddings.
Sentence label_sentence(Labels tokens, Matrix X);
// A noun is 1 in its kind and 1 in its colour; a pronoun is 1 in its own column.
Sentence make_sentence(const Labels& tokens, const std::vector<std::size_t>& colour_of);
// The three nouns in random order with random colours, then 1 to 3 pronouns.
Sentence random_sentence(Random& rng);

struct Weights {
    Matrix W_Q, W_K, W_V;
};

// The backward pass of the row softmax, P = softmax_rows(S): the one line of the
// chain rule that is not a matrix product. dS = P ⊙ (dP − rowsum(dP ⊙ P)), all (n × n).
Matrix softmax_backward(const Matrix& weights, const Matrix& d_weights);

// One Adam step (Kingma & Ba 2015) on W with its gradient g, t = 1, 2, …;
// m and v (W's shape, 0 before the first step) are updated in place:
//   m ← β₁ m + (1 − β₁) g,  v ← β₂ v + (1 − β₂) g²,  β₁ = 0.9, β₂ = 0.999
//   W ← W − lr · m̂ / (√v̂ + ε),  m̂ = m / (1 − β₁ᵗ), v̂ = v / (1 − β₂ᵗ), ε = 10⁻⁸
void adam_step(Matrix& W, const Matrix& g, Matrix& m, Matrix& v, int t, float lr);

// The layer with a causal mask: token i sees tokens 0 … i.
AttentionForward forward(const Matrix& X, const Weights& w);

struct LossAndGradients {
    double loss = 0.0;            // summed in double
    Matrix d_W_Q, d_W_K, d_W_V;   // the shapes of W_Q, W_K, W_V
};
LossAndGradients loss_and_gradients(const std::vector<Sentence>& data, const Weights& w, bool with_gradients);

// The mean weight the pronoun rows put on their noun; and what uniform
// attention would put there (row i sees i + 1 keys).
float weight_on_right_key(const std::vector<Sentence>& data, const Weights& w);
float uniform_weight(const std::vector<Sentence>& data);
// The share of the tokens with a target whose largest output is their target colour.
float right_colour_share(const std::vector<Sentence>& data, const Weights& w);

// The largest |entry| of a matrix (of a gradient, in the lesson's tables).
float largest_entry(const Matrix& m);

// Every analytic gradient entry against its central difference.
struct FiniteDifferences {
    std::string name;               // "d_W_Q"
    Matrix analytic;                // the gradient checked
    double max_abs_error = 0.0;     // max |analytic − numeric|
    double max_relative_error = 0.0;  // relative to max(|a|, |numeric|, 1% of the largest of all three)
};

// What one token of the shown sentence fetched after training.
struct Fetched {
    std::size_t looks_at;  // the key of its largest weight
    float weight;          // that weight
    std::size_t output;    // the colour of its largest output
    std::size_t target;    // the colour it must fetch (d_v: none)
};

struct TrainingRow {
    int step;
    double loss, held_out_loss;
    float weight_on_right;
};

// Everything the lesson shows, computed once.
struct Learning {
    Sentence shown;                        // the sentence whose attention is shown
    std::vector<Sentence> data, held_out;  // B training and B held-out sentences
    Weights raw;                           // W_Q = W_K = I, W_V copies the colours
    AttentionForward raw_shown;            // raw similarity on the shown sentence
    double raw_loss = 0.0;
    float raw_right = 0.0f, uniform = 0.0f;
    Weights before;                        // the random start
    AttentionForward start_shown;          // the shown sentence at the start
    LossAndGradients start;                // loss and full-batch gradients at the start (Adam's first step)
    float start_right = 0.0f;
    AttentionForward first_forward;        // the first training sentence …
    AttentionGradients first_backward;     // … and its backward pass
    std::vector<FiniteDifferences> gradient_check;  // d_W_Q, d_W_K, d_W_V
    double worst_relative_error = 0.0, worst_abs_error = 0.0;
    double float_rounding_over_2h = 0.0;   // FLT_EPSILON · loss / 2h: a float32 loss's share
    Weights after_one_step;                // the random start after Adam's first step (by `start`)
    std::vector<float> curve;              // (steps + 1) the loss before each step, then after the last
    std::vector<TrainingRow> table;        // about ten rows of the curve
    Weights trained;
    AttentionForward trained_shown;
    std::vector<Fetched> fetched;          // one per token of the shown sentence
    Matrix W_QK;                           // (d_model × d_model) W_Q · W_Kᵀ
    std::vector<std::size_t> looks_for;    // the column of the largest entry of each row of W_QK
    float right_after = 0.0f, right_held_out = 0.0f;  // weight on the noun after training
    float colour_after = 0.0f, colour_held_out = 0.0f;  // share of the right colours after training
    Matrix X_train, target_train, lengths;  // (Σn × d_model), (Σn × d_v), (B × 1)
    Matrix loss;                           // (steps + 1 × 1) the curve, as a column

    // Labels: "tokens" (the shown sentence), "first tokens" (the first training sentence),
    // "dimensions", "colours" and "k" (the columns of W_Q and W_K).
    MatrixList matrices() const {
        const AttentionGradients& g = first_backward;
        return {{"X", shown.X, "one token per row", "tokens", "dimensions"},
                {"target", shown.target, "the colour each token must fetch", "tokens", "colours"},
                {"weights_raw", raw_shown.weights, "softmax(X · Xᵀ / √d_model)", "tokens", "tokens",
                 MatrixKind::attention_weights},
                {"W_Q_before", before.W_Q, "random", "dimensions", "k"},
                {"W_K_before", before.W_K, ""},
                {"W_V_before", before.W_V, ""},
                {"d_weights", g.d_weights, "d_output · Vᵀ", "first tokens", "first tokens"},
                {"d_scaled_scores", g.d_scaled_scores, "P ⊙ (dP − rowsum(dP ⊙ P))", "first tokens", "first tokens"},
                {"d_W_Q", start.d_W_Q, ""},  // the full-batch gradients of Adam's first step
                {"d_W_K", start.d_W_K, ""},
                {"d_W_V", start.d_W_V, ""},
                {"loss", loss, ""},
                {"weights_before", start_shown.weights, "at the start", "tokens", "tokens",
                 MatrixKind::attention_weights},
                {"weights", trained_shown.weights, "after training", "tokens", "tokens", MatrixKind::attention_weights},
                {"output", trained_shown.output, "weights · X · W_V", "tokens", "colours"},
                {"W_QK", W_QK, "W_Q · W_Kᵀ", "dimensions", "dimensions"},
                {"W_V", trained.W_V, "learned", "dimensions", "colours"},
                {"W_Q", trained.W_Q, ""},
                {"W_K", trained.W_K, ""},
                {"X_train", X_train, ""},
                {"target_train", target_train, ""},
                {"lengths", lengths, ""}};
    }
};

Learning learn_projections(const Sentence& shown, std::uint64_t seed, std::size_t d_k, int steps, float lr);
