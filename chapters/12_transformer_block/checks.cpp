#include "chapters/12_transformer_block/checks.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>

#include <fmt/format.h>
#include <xtensor/xview.hpp>

#include "common/attention/permutation.hpp"
#include "common/display/text_table.hpp"
#include "common/reference/block_by_loops.hpp"
#include "common/reference/layer_norm_by_loops.hpp"

namespace {

std::string shape(const Matrix& m) { return fmt::format("({} × {})", rows(m), cols(m)); }

// The largest |μ| / √(σ² + ε) over the rows: how many spreads away from 0 the
// rows sit. LayerNorm's float32 rounding grows with it.
double mean_over_spread(const Matrix& x) {
    const RowMoments m = row_moments(x);
    double worst = 0.0;
    for (std::size_t i = 0; i < rows(x); ++i)
        worst = std::max(worst, std::abs(m.mean[i]) / std::sqrt(m.variance[i] + 1e-5));
    return worst;
}

// x̂ and both layer norms against the formula in double.
void check_layer_norms(SelfChecks& check, const BlockPass& r) {
    const std::size_t d_model = cols(r.ln1_input);
    double mean_error = 0.0, variance_error = 0.0;
    for (std::size_t i = 0; i < rows(r.ln1_input); ++i) {
        const double var = r.ln1_in.variance[i];
        mean_error = std::max(mean_error, std::abs(r.ln1_hat.mean[i]));
        variance_error = std::max(variance_error, std::abs(r.ln1_hat.variance[i] - var / (var + 1e-5)));
    }
    // The mean is a float32 sum of d_model numbers of size |μ|, off by less than
    // d_model · FLT_EPSILON · |μ| (row_sum_tolerance), and x̂ sees that error in
    // units of the spread. Nothing for centred rows; past 1e-2 (rows near 1e6 with a
    // spread of 3) too few digits of x − μ are left to check, whatever the code.
    const auto check_layer_norm = [&](const std::string& claim, double error, double tolerance, const Matrix& in) {
        const double ratio = mean_over_spread(in), rounding = row_sum_tolerance(d_model) * ratio;
        const std::string why =
            fmt::format("a row's mean is {:.0e} times its spread: float32 keeps too few digits of x − μ", ratio);
        if (rounding > 1e-2)
            check.skip(claim, why);
        else
            check.close(claim, error, std::max(tolerance, rounding));
    };
    check_layer_norm("every row of x̂ has mean 0", mean_error, 1e-6, r.ln1_input);
    check_layer_norm("every row of x̂ has variance σ²/(σ² + ε), which is 1 up to ε", variance_error, 1e-5,
                     r.ln1_input);
    const auto by_loops = [](const Matrix& x, const LayerNormParams& p) {
        return layer_norm_by_loops(x, p.gamma, p.beta);
    };
    check_layer_norm("LN1 equals the formula as a loop in double",
                     max_abs_difference(r.s.ln1, by_loops(r.ln1_input, r.params.ln1)), 1e-5, r.ln1_input);
    check_layer_norm("LN2 equals the formula as a loop in double",
                     max_abs_difference(r.s.ln2, by_loops(r.ln2_input, r.params.ln2)), 1e-5, r.ln2_input);
}

// The two sub-layers against their loops in double (common/reference/block_by_loops).
void check_sublayers(SelfChecks& check, const Matrix& X, const BlockPass& r) {
    const BlockSteps& s = r.s;
    const std::size_t n = rows(X), d_model = cols(X), h = r.params.heads, d_k = d_model / h;
    double row_sum_error = 0.0;
    for (const Matrix& w : r.head_weights) row_sum_error = std::max(row_sum_error, worst_row_sum_error(w));
    check.close("every head's weights: rows sum to 1", row_sum_error, row_sum_tolerance(n));
    // Attention against the loops in double, from the sub-layer's own input (LN1(X)
    // in pre-norm, X in post-norm). A float32 score is off by about (d_model + d_k)
    // roundings of the size of its terms; a weight moves by less than its score.
    const MultiHeadByLoops loops = multi_head_by_loops(r.pre ? s.ln1 : X, r.params.attention, h);
    double loop_weights_error = 0.0;
    for (std::size_t k = 0; k < h; ++k)
        loop_weights_error =
            std::max(loop_weights_error, max_abs_difference(r.head_weights[k], loops.heads.weights[k]));
    const double weights_tolerance = std::max(1e-5, double(d_model + d_k) * FLT_EPSILON * loops.heads.score_size);
    check.close("every head's weights = softmax(q·k_j/√d_k) as loops in double", loop_weights_error,
                weights_tolerance);
    check.close("attention = concat · W_O + b_O, written as loops in double",
                max_abs_difference(s.attention, loops.output),
                scaled_tolerance(1e-4, loops.output) + weights_tolerance * double(n) * loops.value_size);
    const Matrix& ffn_in = r.pre ? s.ln2 : s.ln1;
    check.close("the FFN equals its formula as loops in double",
                max_abs_difference(s.ffn.output, feed_forward_by_loops(r.params.ffn, ffn_in)), 1e-4);
    Matrix one_at_a_time = Matrix::from_shape({n, d_model});
    for (std::size_t i = 0; i < n; ++i) {
        const Matrix row = xt::view(ffn_in, xt::range(i, i + 1), xt::all());  // (1 × d_model)
        xt::view(one_at_a_time, i, xt::all()) = xt::view(feed_forward(r.params.ffn, row).output, 0, xt::all());
    }
    check.close("position-wise: each token's FFN alone gives the same row",
                max_abs_difference(one_at_a_time, s.ffn.output), 1e-5);
}

// What the whole block must do.
void check_wiring(SelfChecks& check, const Matrix& X, const BlockPass& r) {
    const BlockParams& params = r.params;
    const NormPlacement placement = r.pre ? NormPlacement::pre : NormPlacement::post;
    check.that(fmt::format("the block keeps the shape: {} in, {} out", shape(X), shape(r.s.output)),
               r.s.output.shape() == X.shape());
    const Order backwards = reversal(rows(X));
    const Matrix reversed_out = block_forward(permute_rows(X, backwards), params, placement).output;
    // Reversed, each softmax sums its keys in the other order; the float32 rounding
    // that leaves grows with the output's size (it holds X in pre-norm).
    check.close("without PE, reversing the tokens reverses the output",
                max_abs_difference(reversed_out, permute_rows(r.s.output, backwards)),
                scaled_tolerance(1e-5, r.s.output));
    BlockParams silent = params;  // the sub-layers' last maps set to 0: they add nothing
    silent.attention.W_O.fill(0.0f);
    silent.attention.b_O.fill(0.0f);
    silent.ffn.W_2.fill(0.0f);
    silent.ffn.b_2.fill(0.0f);
    check.close("pre-norm with silent sub-layers is the identity: output = X",
                max_abs_difference(block_forward(X, silent, NormPlacement::pre).output, X), 0.0);
    check.close("post-norm with silent sub-layers is not: output = LN2(LN1(X))",
                max_abs_difference(block_forward(X, silent, NormPlacement::post).output,
                                   layer_norm_tokens(layer_norm_tokens(X, params.ln1), params.ln2)),
                1e-6);
    // math.cpp writes the block out for the lesson; common/block has the same one, unit-tested.
    check.close("this block equals common/block's transformer_block",
                max_abs_difference(r.s.output, transformer_block(X, params, placement).output),
                scaled_tolerance(1e-6, r.s.output));
}

// The parameter counts against the numbers drawn and the published ones.
void check_counts(SelfChecks& check, const BlockPass& r) {
    check.that(fmt::format("this block: the formulas count the {} numbers drawn", grouped(r.drawn)),
               r.toy.total() == r.drawn);
    check.that("Transformer Base by the formulas: attention 4·512² = 1 048 576 (no biases, as chapter 07)",
               r.base.attention == 1048576 && r.base.attention == attention_parameters(512, AttentionBiases::none));
    check.that("Transformer Base by the formulas: FFN 2 099 712, 2 LN 2 048",
               r.base.feed_forward == 2099712 && r.base.layer_norms == 2048);
    check.that("Transformer Base by the formulas: 3 150 336 parameters per encoder layer",
               r.base.total() == 3150336);
    check.that("GPT-2 small: attention 2 362 368, MLP 4 722 432, 2 LN 3 072",
               r.gpt2.attention == 2362368 && r.gpt2.feed_forward == 4722432 && r.gpt2.layer_norms == 3072);
    check.that("GPT-2 small: 7 087 872 per block, 85 054 464 in 12 blocks",
               r.gpt2.total() == 7087872 && r.gpt2_model.blocks == 85054464);
    check.that("GPT-2 small: 124 439 808 parameters in all (the published 124M)",
               r.gpt2_model.total() == 124439808);
}

}  // namespace

void check_block(SelfChecks& check, const Matrix& X, const BlockPass& r) {
    check_layer_norms(check, r);
    check_sublayers(check, X, r);
    check_wiring(check, X, r);
    check_counts(check, r);
}
