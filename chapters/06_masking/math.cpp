#include "chapters/06_masking/math.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>

#include "common/attention/softmax.hpp"
#include "common/numbers/matmul.hpp"

// (n × n): mask(i, j) = 1 when query i may see key j, 0 when key j is hidden from it.
Matrix lower_triangle_mask(std::size_t n) {
    Matrix mask = Matrix::from_shape({n, n});
    // ┌ exercise causal-mask
    for (std::size_t i = 0; i < n; ++i)          // each query …
        for (std::size_t j = 0; j < n; ++j)      // … sees the keys at or before it: j ≤ i
            mask(i, j) = j <= i ? 1.0f : 0.0f;
    // └ stub: mask.fill(1.0f);
    return mask;
}

// (b × n): row s has lengths[s] ones (its real tokens), then zeros (its pads).
Matrix padding_rows(const std::vector<std::size_t>& lengths, std::size_t n) {
    Matrix padding = Matrix::from_shape({lengths.size(), n});
    // ┌ exercise padding-rows
    for (std::size_t s = 0; s < lengths.size(); ++s) {  // sentence s: its real tokens, then its pads
        float* row = &padding(s, 0);
        std::fill(row, row + lengths[s], 1.0f);
        std::fill(row + lengths[s], row + n, 0.0f);
    }
    // └ stub: padding.fill(1.0f);
    return padding;
}

// padding (b × n) → (n × n), the mask of sentence s: every query may see the real tokens,
// so every row of the mask is sentence s's padding row.
Matrix pad_key_mask(const Matrix& padding, std::size_t s) {
    const std::size_t n = cols(padding);
    Matrix mask = Matrix::from_shape({n, n});
    // ┌ exercise key-mask
    for (std::size_t i = 0; i < n; ++i)  // query i: the keys sentence s's padding lets through
        std::copy_n(&padding(s, 0), n, &mask(i, 0));
    // └ stub: (void)s; mask.fill(1.0f);
    return mask;
}

// masked_scores (n × m), −inf where hidden → weights (n × m): a hidden key gets exactly 0,
// the visible ones share 1, and a row with no visible key is all zeros, never NaN.
// One query's row at a time, each pass one call over the row (common/attention/softmax.cpp
// writes the plain softmax that the other chapters use as loops over the entries).
Matrix masked_softmax_rows(const Matrix& masked_scores) {
    const std::size_t m = cols(masked_scores);
    Matrix weights = Matrix::from_shape(masked_scores.shape());
    // ┌ exercise masked-softmax
    const float minus_infinity = -std::numeric_limits<float>::infinity();
    for (std::size_t i = 0; i < rows(masked_scores); ++i) {
        const float* scores = &masked_scores(i, 0);  // query i's row: m scores, −inf where hidden
        float* row = &weights(i, 0);
        // 1. the row maximum: a visible key's score, unless every key is hidden
        const float row_max = *std::max_element(scores, scores + m);
        if (row_max == minus_infinity) {  // no visible key: no weight to give
            std::fill(row, row + m, 0.0f);
            continue;
        }
        // 2. exp(−inf − row_max) = 0 for every hidden key
        std::transform(scores, scores + m, row, [row_max](float s) { return std::exp(s - row_max); });
        // 3. normalise: the visible keys share the weight of 1
        const float sum = std::accumulate(row, row + m, 0.0f);
        std::transform(row, row + m, row, [sum](float e) { return e / sum; });
    }
    // └ stub: weights.fill(0.0f);
    return weights;
}

Matrix pad_rows(const Matrix& X, std::size_t length, bool left) {
    const std::size_t n = rows(X), first = left ? length - n : 0;
    Matrix padded = Matrix::from_shape({length, cols(X)});
    padded.fill(0.0f);  // a pad's embedding is 0
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t d = 0; d < cols(X); ++d) padded(first + i, d) = X(i, d);
    return padded;
}

Matrix row_block(const Matrix& m, std::size_t first, std::size_t count) {
    std::vector<std::size_t> which(count);
    for (std::size_t i = 0; i < count; ++i) which[i] = first + i;
    return pick_rows(m, which);
}

Matrix pick_rows(const Matrix& m, const std::vector<std::size_t>& which) {
    Matrix picked = Matrix::from_shape({which.size(), cols(m)});
    for (std::size_t r = 0; r < which.size(); ++r)
        for (std::size_t j = 0; j < cols(m); ++j) picked(r, j) = m(which[r], j);
    return picked;
}

std::vector<float> visible_weight(const Matrix& weights, const Matrix& mask) {
    std::vector<float> kept(rows(weights), 0.0f);  // summed in float, as softmax_then_renormalise sums it
    for (std::size_t i = 0; i < rows(weights); ++i)
        for (std::size_t j = 0; j < cols(weights); ++j)
            if (mask(i, j) != 0.0f) kept[i] += weights(i, j);
    return kept;
}

double hidden_lead(const Matrix& scores, const Matrix& mask, std::size_t i) {
    double best_hidden = -std::numeric_limits<double>::infinity(), best_visible = best_hidden;
    for (std::size_t j = 0; j < cols(scores); ++j) {
        double& best = mask(i, j) != 0.0f ? best_visible : best_hidden;
        best = std::max(best, static_cast<double>(scores(i, j)));
    }
    return best_hidden - best_visible;
}

float weight_on_first(const Matrix& weights, std::size_t i, std::size_t count) {
    float sum = 0.0f;
    for (std::size_t j = 0; j < count; ++j) sum += weights(i, j);
    return sum;
}

QKV project(const Matrix& X, const Projections& W) {
    return {matmul(X, W.W_Q), matmul(X, W.W_K), matmul(X, W.W_V)};  // (n × d_model) · (d_model × d_k) → (n × d_k)
}

std::pair<QKV, MaskedAttentionSteps> masked_self_attention(const Matrix& X, const Projections& W, const Matrix& mask) {
    const std::size_t d_k = cols(W.W_Q);  // W_Q is (d_model × d_k): d_k is the width of a query and a key
    const QKV p = project(X, W);
    MaskedAttentionSteps s;
    s.scores = matmul_transposed(p.Q, p.K);                                      // (n × n)
    s.scaled_scores = s.scores * (1.0f / std::sqrt(static_cast<float>(d_k)));  // (n × n)
    s.masked_scores = apply_mask(s.scaled_scores, mask);                         // −inf where mask = 0
    s.weights = masked_softmax_rows(s.masked_scores);                            // hidden keys: exactly 0
    s.output = matmul(s.weights, p.V);                                           // (n × d_v)
    return {p, s};
}

Causal causal_attention(const Matrix& X, const Projections& W) {
    Causal r;
    const std::size_t n = rows(X);
    // pass 1: the causal mask, and attention with −inf where it is 0
    r.mask = lower_triangle_mask(n);
    std::tie(r.p, r.steps) = masked_self_attention(X, W, r.mask);
    // pass 2: the other way, softmax over every key, then forget the hidden ones
    r.unmasked = softmax_rows(r.steps.scaled_scores);
    r.renormalised = softmax_then_renormalise(r.steps.scaled_scores, r.mask);
    r.kept = visible_weight(r.unmasked, r.mask);
    // A kept weight below the smallest normal float has lost digits (or is 0).
    for (std::size_t i = 0; i < n; ++i)
        (r.kept[i] >= std::numeric_limits<float>::min() ? r.sound_rows : r.broken_rows).push_back(i);
    if (!r.broken_rows.empty()) r.broken_lead = hidden_lead(r.steps.scaled_scores, r.mask, r.broken_rows.front());
    return r;
}

Padded padded_batch(const Matrix& short_X, std::size_t length, const Projections& W) {
    Padded r;
    r.padding = padding_rows({length, rows(short_X)}, length);  // (2 × length)
    r.X = pad_rows(short_X, length, false);
    r.mask = pad_key_mask(r.padding, 1);  // sentence 1's keys, for every query
    std::tie(r.p, r.batch) = masked_self_attention(r.X, W, r.mask);
    r.unmasked = scaled_dot_product_attention(r.p.Q, r.p.K, r.p.V);  // the pads not hidden
    for (std::size_t i = 0; i < length; ++i)
        r.pad_share.push_back(1.0f - weight_on_first(r.unmasked.weights, i, rows(short_X)));
    const QKV alone = project(short_X, W);
    r.alone = scaled_dot_product_attention(alone.Q, alone.K, alone.V);
    return r;
}

LeftPadded left_padded(const Matrix& short_X, std::size_t pads, const Projections& W) {
    LeftPadded r;
    const std::size_t n = rows(short_X) + pads;
    r.X = pad_rows(short_X, n, true);
    Matrix real = Matrix::from_shape({1, n});  // (1 × n) the padding mask of this one sentence
    for (std::size_t j = 0; j < n; ++j) real(0, j) = j < pads ? 0.0f : 1.0f;
    r.mask = lower_triangle_mask(n) * pad_key_mask(real, 0);  // both masks at once
    std::tie(r.p, r.generation) = masked_self_attention(r.X, W, r.mask);
    r.short_causal = masked_self_attention(short_X, W, lower_triangle_mask(rows(short_X))).second;
    return r;
}
