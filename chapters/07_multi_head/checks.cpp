#include "chapters/07_multi_head/checks.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/block/attention_parameters.hpp"
#include "common/block/transformer_block.hpp"
#include "common/display/print.hpp"
#include "common/display/text_table.hpp"
#include "common/numbers/project_in_double.hpp"
#include "common/reference/attention_by_loops.hpp"

namespace {

using Rows = std::vector<std::vector<double>>;

Matrix to_float(const Rows& a) {
    Matrix m = Matrix::from_shape({a.size(), a.empty() ? 0 : a[0].size()});
    for (std::size_t r = 0; r < a.size(); ++r)
        for (std::size_t c = 0; c < a[r].size(); ++c) m(r, c) = static_cast<float>(a[r][c]);
    return m;
}

Rows to_double(const Matrix& m) {
    Rows a(rows(m), std::vector<double>(cols(m)));
    for (std::size_t r = 0; r < rows(m); ++r)
        for (std::size_t c = 0; c < cols(m); ++c) a[r][c] = m(r, c);
    return a;
}

// The layer again with nothing shared with the float code: X · W in double (rounded to
// float once), every head by the reference loops (common/reference, in double), then
// concat · W_O in double; and the sizes its float rounding is relative to.
struct Reference {
    HeadsByLoops heads;         // h × (n × n) weights, concat (n × h·d_v)
    Matrix output;              // (n × d_model)
    double score_size = 0.0;    // max over heads, q, j of Σ_c |q_c|·|k_jc| / √d_k, |q_c| ≤ Σ_d |x_d w_dc|
    double value_size = 0.0;    // max |V| · max over columns of Σ_c |W_O(c, d)|
    double score_spread = 0.0;  // max over heads and queries of (largest − smallest scaled score)
};

Reference reference(const Matrix& X, const MultiHeadWeights& W, std::size_t h) {
    const std::size_t n = rows(X), d_k = cols(W.W_Q) / h;
    const Rows V = project_in_double(X, W.W_V);
    Reference r;
    r.heads = heads_by_loops(to_float(project_in_double(X, W.W_Q)), to_float(project_in_double(X, W.W_K)),
                             to_float(V), h, h);
    r.output = times_in_double(to_double(r.heads.output), W.W_O);
    r.value_size = largest_abs(V) * largest_column_sum(W.W_O);
    const Rows Q_size = project_in_double(X, W.W_Q, true), K_size = project_in_double(X, W.W_K, true);
    for (std::size_t i = 0; i < h; ++i)
        for (std::size_t q = 0; q < n; ++q)
            for (std::size_t j = 0; j < n; ++j) {
                double size = 0.0;
                for (std::size_t c = i * d_k; c < (i + 1) * d_k; ++c) size += Q_size[q][c] * K_size[j][c];
                r.score_size = std::max(r.score_size, size / std::sqrt(double(d_k)));
            }
    // w_j ∝ exp(s_j), so a row's largest minus smallest score is log(largest / smallest weight).
    for (const Matrix& w : r.heads.weights)
        for (std::size_t q = 0; q < n; ++q) {
            const auto [low, high] = std::minmax_element(&w(q, 0), &w(q, 0) + n);
            r.score_spread = std::max(r.score_spread, std::log(double(*high) / double(*low)));
        }
    return r;
}

// True when every row of m equals the first: then every key is the same, and
// every head gives every key the same weight.
bool all_rows_equal(const Matrix& m) {
    for (std::size_t r = 1; r < rows(m); ++r)
        for (std::size_t c = 0; c < cols(m); ++c)
            if (m(r, c) != m(0, c)) return false;
    return true;
}

// The claim that the heads differ: the two most alike heads still place some weight differently.
void check_heads_differ(SelfChecks& check, const Matrix& X, const MultiHeadForms& r, double score_spread) {
    // How differently two heads attend, measured as a share of a query's weight
    // (it does not shrink as a longer row spreads its weight thinner); the
    // claim is about the two most alike heads, so twins anywhere show.
    const std::string claim = "the heads attend differently";
    if (all_rows_equal(X))
        return check.skip(claim, rows(X) == 1 ? "one token: every weight is 1"
                                              : "every token has the same embedding: every weight is 1/n");
    if (score_spread < 0.1)  // e^0.1 ≈ 1.1: no weight is far from 1/n, in any head
        return check.skip(claim, fmt::format("every scaled score is within {:.0e} of its row's others: every "
                                             "weight is near 1/n",
                                             score_spread));
    std::size_t a = 0, b = 1;
    double least = weight_moved(r.heads[0].weights, r.heads[1].weights);
    for (std::size_t i = 0; i < r.h; ++i)
        for (std::size_t j = i + 1; j < r.h; ++j)
            if (const double moved = weight_moved(r.heads[i].weights, r.heads[j].weights); moved < least)
                least = moved, a = i, b = j;
    check.that(r.h == 2 ? fmt::format("{} (they place up to {} of a query's weight differently)", claim,
                                      format_number(float(least), 2))
                        : fmt::format("{} (the two most alike, heads {} and {}, place up to {} of a "
                                      "query's weight differently)",
                                      claim, a, b, format_number(float(least), 2)),
               least > 0.05);
}

}  // namespace

void check_multi_head(SelfChecks& check, const Matrix& X, const MultiHeadWeights& W, const MultiHeadForms& r) {
    const std::size_t n = rows(X), h = r.h;
    // The outputs grow with the inputs (values of 1e6 give outputs of 1e6), and so
    // does float32 rounding: these tolerances are relative to the outputs' size.
    check.close("the loop over heads equals the split matrix: concat", max_abs_difference(r.concat, r.split.concat),
                scaled_tolerance(1e-4, r.split.concat));
    check.close("the loop over heads equals the split matrix: output", max_abs_difference(r.output, r.split.output),
                scaled_tolerance(1e-4, r.split.output));
    const Reference loops = reference(X, W, h);
    double split_error = 0.0, loops_error = 0.0, row_sum_error = 0.0;
    for (std::size_t i = 0; i < h; ++i) {
        split_error = std::max(split_error, max_abs_difference(r.heads[i].weights, head(r.split.weights, i)));
        loops_error = std::max(loops_error, max_abs_difference(r.heads[i].weights, loops.heads.weights[i]));
        row_sum_error = std::max(row_sum_error, worst_row_sum_error(r.heads[i].weights));
    }
    check.close("every head's weights: loop = split matrix", split_error, 1e-5);
    // A float32 score is off by about (d_model + d_k) roundings of the size its terms
    // have (score_size); a weight moves by less than its score does.
    const double weights_tolerance = std::max(1e-5, double(cols(X) + r.d_k) * FLT_EPSILON * loops.score_size);
    check.close("every head's weights = softmax(q·k_j/√d_k) as loops in double", loops_error, weights_tolerance);
    check.close("output = Σ_j w_j v_j of every head, · W_O, as loops in double",
                max_abs_difference(r.output, loops.output),
                scaled_tolerance(1e-4, loops.output) + weights_tolerance * double(n) * loops.value_size);
    check.close("every row of every head's weights sums to 1", row_sum_error, row_sum_tolerance(n));
    // concat · W_O = Σ_i head_i · W_O[i·d_v : (i+1)·d_v, :]: W_O adds up what each head found.
    check.close("output = Σ_i head_i · (head i's rows of W_O)", max_abs_difference(r.summed, r.output),
                scaled_tolerance(1e-4, r.output));
    if (h > 1) check_heads_differ(check, X, r, loops.score_spread);
    using B = AttentionBiases;
    check.that("GPT-2 small: c_attn 768·2304 + 2304 + c_proj 768·768 + 768 = 2 362 368",
               768 * 2304 + 2304 + 768 * 768 + 768 == 2362368 && attention_parameters(768, B::with_biases) == 2362368);
    check.that("Transformer Base: attention 4 · 512² = 1 048 576 (no biases), as chapter 12 counts it",
               attention_parameters(512, B::none) == 1048576 &&
                   count_block_parameters(512, 2048, B::none).attention == 1048576);
    const std::size_t d_model = cols(X);
    const Cost one = multi_head_cost(n, d_model, 1), many = multi_head_cost(n, d_model, h);
    const std::uint64_t closed_form = 4 * std::uint64_t{n} * d_model * d_model + 2 * std::uint64_t{n} * n * d_model;
    check.that(fmt::format("{} heads cost the multiply-adds of 1 head: {} = {} = 4·n·d_model² + 2·n²·d_model", h,
                           grouped(many.total()), grouped(one.total())),
               many.total() == one.total() && one.total() == closed_form);
}
