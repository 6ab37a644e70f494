#include "chapters/02_softmax/math.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/attention/softmax.hpp"
#include "common/attention/weight_entropy.hpp"
#include "common/numbers/matmul.hpp"

// scores (n × m) → weights (n × m)
Matrix naive_softmax_rows(const Matrix& scores) {
    Matrix weights = Matrix::from_shape(scores.shape());
    for (std::size_t i = 0; i < rows(scores); ++i) {
        // 1. exponentiate every score and sum them
        float sum = 0.0f;
        for (std::size_t j = 0; j < cols(scores); ++j) {
            weights(i, j) = std::exp(scores(i, j));
            sum += weights(i, j);
        }
        // 2. normalise so the row sums to 1
        for (std::size_t j = 0; j < cols(scores); ++j) weights(i, j) /= sum;
    }
    return weights;
}

// scores (n × m) → weights (n × m)
Matrix stable_softmax_rows(const Matrix& scores) {
    Matrix weights = Matrix::from_shape(scores.shape());
    // ┌ exercise stable-softmax
    for (std::size_t i = 0; i < rows(scores); ++i) {
        // 1. find the row maximum, for numerical stability
        float row_max = scores(i, 0);
        for (std::size_t j = 1; j < cols(scores); ++j) row_max = std::max(row_max, scores(i, j));
        // 2. exp of the shifted scores: every one is in (0, 1], the largest is exactly 1
        float sum = 0.0f;
        for (std::size_t j = 0; j < cols(scores); ++j) {
            weights(i, j) = std::exp(scores(i, j) - row_max);
            sum += weights(i, j);
        }
        // 3. normalise (sum ≥ 1, so this never divides by zero)
        for (std::size_t j = 0; j < cols(scores); ++j) weights(i, j) /= sum;
    }
    // └ stub: weights.fill(0.0f);
    return weights;
}

// scores (n × m) → (n × m)
Matrix divide_by_row_sum(const Matrix& scores) {
    Matrix out = Matrix::from_shape(scores.shape());
    for (std::size_t i = 0; i < rows(scores); ++i) {
        float sum = 0.0f;
        for (std::size_t j = 0; j < cols(scores); ++j) sum += scores(i, j);
        for (std::size_t j = 0; j < cols(scores); ++j) out(i, j) = scores(i, j) / sum;
    }
    return out;
}

bool sum_of_exp_overflows(const Matrix& scores, std::size_t i) {
    double sum = 0.0;
    for (std::size_t j = 0; j < cols(scores); ++j) sum += std::exp(double(scores(i, j)));
    return sum > double(std::numeric_limits<float>::max());
}

// Not "wherever naive is finite": when the sum overflows but no single exp() does
// (many keys tied near the top, as in a long --input), every naive weight is
// finite / inf = 0, finite and wrong. The rows the naive loop gets right are the
// rows where its sum fits.
double max_difference_where_sum_fits(const Matrix& naive, const Matrix& stable, const Matrix& scores) {
    double worst = 0.0;
    for (std::size_t i = 0; i < rows(scores); ++i)
        if (!sum_of_exp_overflows(scores, i))
            for (std::size_t j = 0; j < cols(scores); ++j)
                worst = std::max(worst, double(std::abs(naive(i, j) - stable(i, j))));
    return worst;
}

// X (n × d_model)
NaiveAndStable naive_and_stable(const Matrix& X, float temperature) {
    NaiveAndStable r;
    const std::size_t n = rows(X);
    // pass 1: the scores of chapter 01, (n × d_model) · (d_model × n) → (n × n)
    r.scores = matmul_transposed(X, X);
    // pass 2: two hand-made rows with negative scores, divided by their sum and softmaxed
    r.example_scores = {{2.0f, -1.0f, 0.5f}, {1.0f, -0.9f, -0.05f}};
    r.divided_by_sum = divide_by_row_sum(r.example_scores);
    r.example_weights = naive_softmax_rows(r.example_scores);
    // pass 3: both loops, on the scores and on 100 · scores (where exp() overflows)
    r.naive_weights = naive_softmax_rows(r.scores);
    r.stable_weights = stable_softmax_rows(r.scores);
    r.scores_x100 = r.scores * 100.0f;
    r.naive_weights_x100 = naive_softmax_rows(r.scores_x100);
    r.stable_weights_x100 = stable_softmax_rows(r.scores_x100);
    r.tied_row = n;
    for (std::size_t i = 0; i < n; ++i) {
        r.overflows.push_back(sum_of_exp_overflows(r.scores, i));
        r.overflows_x100.push_back(sum_of_exp_overflows(r.scores_x100, i));
        const float top = r.scores_x100(i, argmax_of_row(r.scores_x100, i));
        r.top_exp_finite_x100.push_back(std::isfinite(std::exp(top)));  // many keys tied near the top
        const float row_max = r.scores(i, argmax_of_row(r.scores, i));
        std::size_t at_max = 0;
        for (std::size_t j = 0; j < n; ++j) at_max += r.scores(i, j) == row_max;
        if (at_max > 1 && r.tied_row == n) r.tied_row = i;
    }
    r.naive_vs_stable = max_difference_where_sum_fits(r.naive_weights, r.stable_weights, r.scores);
    r.naive_vs_stable_x100 =
        max_difference_where_sum_fits(r.naive_weights_x100, r.stable_weights_x100, r.scores_x100);
    // pass 4: the shared softmax_rows at temperature T, and each row's entropy
    r.temperature = temperature;
    r.scaled = r.scores / temperature;
    r.weights = softmax_rows(r.scaled);
    for (std::size_t i = 0; i < n; ++i) r.entropy.push_back(row_entropy(r.weights, i));
    // pass 5: a sweep of temperatures, T among them
    r.sweep = {0.01f, 0.1f, 0.25f, 0.5f, 1.0f, 2.0f, 10.0f, 100.0f};
    if (std::find(r.sweep.begin(), r.sweep.end(), temperature) == r.sweep.end()) r.sweep.push_back(temperature);
    std::sort(r.sweep.begin(), r.sweep.end());
    for (const float t : r.sweep) {
        const Matrix w = softmax_rows(r.scores / t);  // (n × n)
        r.sweep_entropy.push_back(mean_row_entropy(w));
        r.sweep_largest.push_back(mean_row_largest(w));
    }
    return r;
}
