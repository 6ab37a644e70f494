// The hand-written backward pass of single-head attention against central
// finite differences, the softmax's backward pass against a hand computation,
// the causal mask's zeros, Adam's first step, and a small task it learns.
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "common/attention/attention.hpp"
#include "common/attention/attention_backward.hpp"
#include "common/attention/mask.hpp"
#include "common/learning/adam.hpp"
#include "common/lesson/self_check.hpp"
#include "common/numbers/matmul.hpp"
#include "common/numbers/random.hpp"

namespace {

struct Shape {
    std::size_t n, d_model, d_k, d_v;
};

// A loss whose gradient with respect to output is G: L = Σ output ⊙ G, summed in double.
double probe_loss(const Matrix& X, const Matrix& W_Q, const Matrix& W_K, const Matrix& W_V, const Matrix& mask,
                  const Matrix& G) {
    const Matrix out = attention_forward(X, W_Q, W_K, W_V, mask).output;
    double sum = 0.0;
    for (std::size_t i = 0; i < out.size(); ++i) sum += double(out.flat(i)) * double(G.flat(i));
    return sum;
}

// Largest |analytic − numeric| / max(|analytic|, |numeric|, 1e-2), over every entry of
// `wrt` (one of X, W_Q, W_K, W_V), by finite differences with h = 1e-2 in float32.
double worst_relative_error(Matrix& wrt, const Matrix& analytic, const Matrix& X, const Matrix& W_Q,
                            const Matrix& W_K, const Matrix& W_V, const Matrix& mask, const Matrix& G) {
    const float h = 1e-2f;
    double worst = 0.0;
    const auto loss_at = [&](std::size_t i, float value) {
        wrt.flat(i) = value;
        return probe_loss(X, W_Q, W_K, W_V, mask, G);
    };
    for (std::size_t i = 0; i < wrt.size(); ++i) {
        const float kept = wrt.flat(i);
        // The five-point stencil: its error shrinks like h⁴ (the plain central
        // difference's like h², too large here for scores of several units).
        const double near = loss_at(i, kept + h) - loss_at(i, kept - h);
        const double far = loss_at(i, kept + 2 * h) - loss_at(i, kept - 2 * h);
        wrt.flat(i) = kept;
        const double numeric = (8.0 * near - far) / (12.0 * double(h));
        const double a = analytic.flat(i);
        worst = std::max(worst, std::abs(a - numeric) / std::max({std::abs(a), std::abs(numeric), 1e-2}));
    }
    return worst;
}

void check_gradients(const Shape& s, bool causal, std::uint64_t seed) {
    Random rng(seed);
    Matrix X = rng.normal_matrix(s.n, s.d_model);
    Matrix W_Q = rng.normal_matrix(s.d_model, s.d_k, 0.5f);
    Matrix W_K = rng.normal_matrix(s.d_model, s.d_k, 0.5f);
    Matrix W_V = rng.normal_matrix(s.d_model, s.d_v, 0.5f);
    const Matrix G = rng.normal_matrix(s.n, s.d_v);
    const Matrix mask = causal ? causal_mask(s.n) : Matrix();
    const AttentionForward f = attention_forward(X, W_Q, W_K, W_V, mask);
    const AttentionGradients g = attention_backward(X, W_Q, W_K, W_V, f, G);
    CHECK(g.d_W_Q.shape() == W_Q.shape());
    CHECK(g.d_W_K.shape() == W_K.shape());
    CHECK(g.d_W_V.shape() == W_V.shape());
    CHECK(g.d_X.shape() == X.shape());
    // float32 rounding in the loss (≈1e-7 of it) divided by h, and the h⁴ error of
    // the stencil: measured at most 2.3e-3 relative on these shapes; a wrong line
    // of the backward pass gives 0.3 and more (see the next test case).
    CHECK(worst_relative_error(W_Q, g.d_W_Q, X, W_Q, W_K, W_V, mask, G) < 1e-2);
    CHECK(worst_relative_error(W_K, g.d_W_K, X, W_Q, W_K, W_V, mask, G) < 1e-2);
    CHECK(worst_relative_error(W_V, g.d_W_V, X, W_Q, W_K, W_V, mask, G) < 1e-2);
    CHECK(worst_relative_error(X, g.d_X, X, W_Q, W_K, W_V, mask, G) < 1e-2);
}

const std::vector<Shape> shapes = {{3, 4, 2, 3}, {5, 6, 3, 2}, {2, 3, 1, 1}, {7, 5, 4, 4}};

}  // namespace

TEST_CASE("attention backward: every gradient matches central differences, no mask") {
    std::uint64_t seed = 1;
    for (const Shape& s : shapes) {
        CAPTURE(s.n);
        CAPTURE(s.d_model);
        check_gradients(s, false, seed++);
    }
}

TEST_CASE("attention backward: every gradient matches central differences, causal mask") {
    std::uint64_t seed = 100;
    for (const Shape& s : shapes) {
        CAPTURE(s.n);
        CAPTURE(s.d_model);
        check_gradients(s, true, seed++);
    }
}

TEST_CASE("a wrong gradient is caught: the check is not blind") {
    Random rng(7);
    Matrix X = rng.normal_matrix(4, 3);
    Matrix W_Q = rng.normal_matrix(3, 2, 0.5f), W_K = rng.normal_matrix(3, 2, 0.5f), W_V = rng.normal_matrix(3, 2, 0.5f);
    const Matrix G = rng.normal_matrix(4, 2);
    const AttentionGradients g = attention_backward(X, W_Q, W_K, W_V, attention_forward(X, W_Q, W_K, W_V), G);
    const Matrix wrong = g.d_W_Q * 2.0f;  // e.g. a forgotten 1/√d_k
    CHECK(worst_relative_error(W_Q, wrong, X, W_Q, W_K, W_V, Matrix(), G) > 0.3);
}

TEST_CASE("the forward pass is scaled dot-product attention of the projections") {
    Random rng(3);
    const Matrix X = rng.normal_matrix(4, 5);
    const Matrix W_Q = rng.normal_matrix(5, 3), W_K = rng.normal_matrix(5, 3), W_V = rng.normal_matrix(5, 2);
    const AttentionForward f = attention_forward(X, W_Q, W_K, W_V);
    const AttentionSteps reference = scaled_dot_product_attention(matmul(X, W_Q), matmul(X, W_K), matmul(X, W_V));
    CHECK(max_abs_difference(f.weights, reference.weights) < 1e-6);
    CHECK(max_abs_difference(f.output, reference.output) < 1e-5);
}

TEST_CASE("softmax backward by hand: p = (1/2, 1/2), dp = (1, 0) gives ds = (1/4, −1/4)") {
    // ds_k = p_k (dp_k − Σ_j dp_j p_j), Σ_j dp_j p_j = 1/2
    const Matrix P = {{0.5f, 0.5f}};
    const Matrix dP = {{1.0f, 0.0f}};
    const Matrix dS = softmax_rows_backward(P, dP);
    CHECK(dS(0, 0) == doctest::Approx(0.25));
    CHECK(dS(0, 1) == doctest::Approx(-0.25));
}

TEST_CASE("softmax backward: each row sums to 0, and a constant dp gives 0") {
    Random rng(5);
    const Matrix P = attention_forward(rng.normal_matrix(4, 3), rng.normal_matrix(3, 3), rng.normal_matrix(3, 3),
                                       rng.normal_matrix(3, 2))
                         .weights;
    const Matrix dS = softmax_rows_backward(P, rng.normal_matrix(4, 4));
    for (std::size_t i = 0; i < 4; ++i) {
        double sum = 0.0;
        for (std::size_t j = 0; j < 4; ++j) sum += dS(i, j);
        CHECK(std::abs(sum) < 1e-6);
    }
    // Adding c to every weight's gradient changes nothing: weights sum to 1 whatever the scores.
    const Matrix constant = xt::ones<float>({4, 4}) * 3.0f;
    CHECK(xt::amax(xt::abs(softmax_rows_backward(P, constant)))() < 1e-6f);
}

TEST_CASE("causal mask: hidden keys get exactly zero gradient, and the past ignores the future") {
    Random rng(9);
    const std::size_t n = 5;
    const Matrix X = rng.normal_matrix(n, 4);
    const Matrix W_Q = rng.normal_matrix(4, 2), W_K = rng.normal_matrix(4, 2), W_V = rng.normal_matrix(4, 3);
    const AttentionForward f = attention_forward(X, W_Q, W_K, W_V, causal_mask(n));
    Matrix G = xt::zeros<float>({n, std::size_t(3)});
    for (std::size_t c = 0; c < 3; ++c) G(1, c) = 1.0f;  // only token 1's output matters
    const AttentionGradients g = attention_backward(X, W_Q, W_K, W_V, f, G);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) CHECK(g.d_scaled_scores(i, j) == 0.0f);
    // Token 1 sees tokens 0 and 1 only: the tokens after it get no gradient at all.
    for (std::size_t i = 2; i < n; ++i)
        for (std::size_t d = 0; d < 4; ++d) CHECK(g.d_X(i, d) == 0.0f);
    float first_row = 0.0f;  // token 0 is seen by token 1: it does get a gradient
    for (std::size_t d = 0; d < 4; ++d) first_row = std::max(first_row, std::abs(g.d_X(0, d)));
    CHECK(first_row > 0.0f);
}

TEST_CASE("Adam's first step moves every entry by lr against the sign of its gradient") {
    // m̂ = g and v̂ = g² after one step, so the update is lr · g / (|g| + ε) ≈ lr · sign(g).
    Matrix W = {{1.0f, 1.0f, 1.0f}};
    const Matrix grad = {{0.001f, -5.0f, 200.0f}};
    Adam adam(0.1f);
    adam.step({&W}, {&grad});
    CHECK(W(0, 0) == doctest::Approx(0.9).epsilon(1e-4));
    CHECK(W(0, 1) == doctest::Approx(1.1).epsilon(1e-4));
    CHECK(W(0, 2) == doctest::Approx(0.9).epsilon(1e-4));
}

TEST_CASE("gradient descent learns a retrieval: token k fetches the content of token (k + 1) mod 3") {
    // X = [which token (one-hot, 3) | content (2, random per sentence)];
    // target of token k = content of token (k + 1) mod 3. The content is random, so
    // only attention to the right token gives it: W_Q · W_Kᵀ must learn the shift.
    Random rng(2024);
    const std::size_t n = 3, d_model = 5, d_v = 2, sentences = 32;
    std::vector<Matrix> Xs, targets;
    for (std::size_t b = 0; b < sentences; ++b) {
        Matrix X = xt::zeros<float>({n, d_model});
        for (std::size_t k = 0; k < n; ++k) {
            X(k, k) = 1.0f;
            X(k, 3) = rng.normal();
            X(k, 4) = rng.normal();
        }
        Matrix t = Matrix::from_shape({n, d_v});
        for (std::size_t k = 0; k < n; ++k)
            for (std::size_t c = 0; c < d_v; ++c) t(k, c) = X((k + 1) % n, 3 + c);
        Xs.push_back(X);
        targets.push_back(t);
    }
    Matrix W_Q = rng.normal_matrix(d_model, 2, 0.3f), W_K = rng.normal_matrix(d_model, 2, 0.3f),
           W_V = rng.normal_matrix(d_model, d_v, 0.3f);
    const auto loss_and_step = [&](Adam* adam) {
        double loss = 0.0;
        Matrix dQ = xt::zeros<float>(W_Q.shape()), dK = xt::zeros<float>(W_K.shape()), dV = xt::zeros<float>(W_V.shape());
        for (std::size_t b = 0; b < sentences; ++b) {
            const AttentionForward f = attention_forward(Xs[b], W_Q, W_K, W_V);
            const Matrix diff = f.output - targets[b];
            for (float e : diff) loss += double(e) * double(e) / double(n * sentences);
            const AttentionGradients g =
                attention_backward(Xs[b], W_Q, W_K, W_V, f, diff * (2.0f / float(n * sentences)));
            dQ += g.d_W_Q, dK += g.d_W_K, dV += g.d_W_V;
        }
        if (adam) adam->step({&W_Q, &W_K, &W_V}, {&dQ, &dK, &dV});
        return loss;
    };
    const double initial = loss_and_step(nullptr);
    Adam adam(0.05f);
    for (int t = 0; t < 300; ++t) loss_and_step(&adam);
    const double final_loss = loss_and_step(nullptr);
    CHECK(final_loss * 20.0 < initial);  // measured: 3e-5 after 300 steps, from 2.4
    double right = 0.0;
    for (std::size_t b = 0; b < sentences; ++b) {
        const Matrix P = attention_forward(Xs[b], W_Q, W_K, W_V).weights;
        for (std::size_t k = 0; k < n; ++k) right += P(k, (k + 1) % n) / double(n * sentences);
    }
    CHECK(right > 0.9);
}
