#include "chapters/15_grouped_query/checks.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/display/print.hpp"
#include "common/numbers/project_in_double.hpp"
#include "common/reference/attention_by_loops.hpp"

namespace {

// Key–value head j's block of d_k columns for each query head i, j = kv[i]: (n × g·d_k) →
// (n × h·d_k). The reference then reads them as h heads of their own, whatever the order.
Matrix one_block_per_query_head(const Matrix& M, std::size_t g, const std::vector<std::size_t>& kv) {
    const std::size_t d_k = cols(M) / g;
    Matrix R = Matrix::from_shape({rows(M), kv.size() * d_k});
    for (std::size_t i = 0; i < kv.size(); ++i)
        for (std::size_t t = 0; t < rows(M); ++t)
            for (std::size_t c = 0; c < d_k; ++c) R(t, i * d_k + c) = M(t, kv[i] * d_k + c);
    return R;
}

// The reference's weights and output, ready to compare: output = concat · W_O summed in double.
struct Reference {
    HeadsByLoops heads;
    Matrix output;  // (n × d_model)
};

Reference reference(HeadsByLoops heads, const Matrix& W_O) {
    std::vector<std::vector<double>> concat(rows(heads.output), std::vector<double>(cols(heads.output)));
    for (std::size_t t = 0; t < rows(heads.output); ++t)
        for (std::size_t c = 0; c < cols(heads.output); ++c) concat[t][c] = heads.output(t, c);
    Matrix output = times_in_double(concat, W_O);
    return {std::move(heads), std::move(output)};
}

// One mapping's layer against the reference: its weights, and its output.
void check_against(SelfChecks& check, const GroupedAttention& a, const Reference& ref, const Matrix& W_O,
                   std::size_t d_model, const std::string& weights_claim, const std::string& output_claim) {
    const std::size_t n = rows(a.Q), h = a.kv_of.size(), d_k = cols(a.Q) / h;
    double weights_error = 0.0;
    for (std::size_t i = 0; i < h; ++i)
        weights_error = std::max(weights_error, max_abs_difference(a.weights[i], ref.heads.weights[i]));
    // A float32 score is off by about (d_model + d_k) roundings of the size its terms have
    // (score_size); a weight moves by less than its score, an output by n weights' worth of values.
    const double weights_tolerance = std::max(1e-5, double(d_model + d_k) * FLT_EPSILON * ref.heads.score_size);
    check.close(weights_claim, weights_error, weights_tolerance);
    const double value_size = largest_abs(a.V) * largest_column_sum(W_O);
    check.close(output_claim, max_abs_difference(a.output, ref.output),
                scaled_tolerance(1e-4, ref.output) + weights_tolerance * double(n) * value_size);
}

// The tiling against the real mapping: different for 1 < g < h, the same otherwise.
void check_tiling(SelfChecks& check, const GroupedHeads& r) {
    const std::size_t h = r.h, g = r.g;
    const double moved = max_abs_difference(r.tiled.output, r.grouped.output);
    if (g == 1 || g == h)
        return (void)check.that(fmt::format("g = {}: the tiling i mod g is the same mapping, and gives the same output",
                                            g == 1 ? "1" : "h"),
                                r.tiled.kv_of == r.grouped.kv_of && moved == 0.0);
    std::size_t first = 0;  // the first query head the two orders send to different key–value heads
    while (first < h && r.tiled.kv_of[first] == r.grouped.kv_of[first]) ++first;
    check.that(first < h ? fmt::format("1 < g < h: the tiling reads another key–value head for some query head "
                                       "(head {}: {} instead of {})",
                                       first, r.tiled.kv_of[first], r.grouped.kv_of[first])
                         : "1 < g < h: the tiling reads another key–value head for some query head (here none does)",
               first < h);
    const std::string claim = "1 < g < h: the tiling changes the output";
    if (largest_abs(r.grouped.V) == 0.0)
        return check.skip(claim, "every value is 0 (X · W_V = 0): every head's output is 0 whichever it reads");
    check.that(fmt::format("{} (largest |output_tiled − output| = {})", claim, format_number(float(moved), 3)),
               moved > 1e-3 * largest_abs(r.grouped.output));
}

}  // namespace

void check_grouped(SelfChecks& check, const Matrix& X, const GroupedWeights& W, const GroupedHeads& r) {
    const std::size_t n = rows(X), h = r.h, g = r.g, d_k = r.d_k;
    std::vector<std::size_t> repeat_kv, tile;  // [0, 0, 1, 1] and [0, 1, 0, 1] for h = 4, g = 2
    for (std::size_t j = 0; j < g; ++j) repeat_kv.insert(repeat_kv.end(), h / g, j);
    for (std::size_t copy = 0; copy < h / g; ++copy)
        for (std::size_t j = 0; j < g; ++j) tile.push_back(j);
    check.that("query head i reads key–value head ⌊i / (h/g)⌋: repeat_kv's order, each head h/g times in a row",
               r.grouped.kv_of == repeat_kv);
    check.that("the tiling reads key–value head i mod g: 0, 1, …, g−1, then again", r.tiled.kv_of == tile);
    // The reference groups query heads as repeat_kv does; its scale 1/√d_k is its own.
    check_against(check, r.grouped, reference(heads_by_loops(r.grouped.Q, r.grouped.K, r.grouped.V, h, g), W.W_O),
                  W.W_O, cols(X), "weights = softmax(q·k_j/√d_k), j = kv(i), as loops in double",
                  "output = Σ_j w_j v_j of every head, · W_O, as loops in double");
    double row_sum_error = 0.0;
    for (std::size_t i = 0; i < h; ++i)
        row_sum_error = std::max(row_sum_error, worst_row_sum_error(r.grouped.weights[i]));
    check.close("every row of every head's weights sums to 1", row_sum_error, row_sum_tolerance(n));
    const std::string same = "g = h: output = chapter 07's multi-head layer, same weights";
    if (g == h)
        check.close(same,
                    max_abs_difference(r.grouped.output, multi_head_attention(X, W.W_Q, W.W_K, W.W_V, W.W_O, h).output),
                    scaled_tolerance(1e-4, r.grouped.output));
    else
        check.skip(same, fmt::format("g = {} < h = {}", g, h));
    check.close("output = chapter 07's multi-head attention, kv heads repeated",
                max_abs_difference(r.grouped.output, r.as_multi_head.output), scaled_tolerance(1e-4, r.grouped.output));
    // The tiling as h key–value heads of the reference's own, query head i reading block i mod g.
    check_against(check, r.tiled,
                  reference(heads_by_loops(r.tiled.Q, one_block_per_query_head(r.tiled.K, g, tile),
                                           one_block_per_query_head(r.tiled.V, g, tile), h, h),
                            W.W_O),
                  W.W_O, cols(X), "tiled weights = loops in double that read kv head i mod g",
                  "tiled output = loops in double that read kv head i mod g");
    check_tiling(check, r);
    check.that("Mistral 7B, g = 8: 2 × 32 × 8 × 128 × 2 = 131 072 bytes a token (128 KiB; 512 KiB at g = h)",
               kv_cache_bytes_per_token(32, 8, 128, 2) == 131072 && kv_cache_bytes_per_token(32, 32, 128, 2) == 524288);
    check.that("Llama 2 70B, g = 8: 2 × 80 × 8 × 128 × 2 = 327 680 bytes a token (320 KiB; 2 560 KiB at g = h)",
               kv_cache_bytes_per_token(80, 8, 128, 2) == 327680 && kv_cache_bytes_per_token(80, 64, 128, 2) == 2621440);
    check.that("this chapter's K and V hold n × the bytes of one token (1 layer, float32)",
               (r.grouped.K.size() + r.grouped.V.size()) * 4 == n * kv_cache_bytes_per_token(1, g, d_k, 4));
}
