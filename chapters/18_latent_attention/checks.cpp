#include "chapters/18_latent_attention/checks.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/attention/multi_head.hpp"
#include "common/display/print.hpp"
#include "common/numbers/project_in_double.hpp"
#include "common/reference/latent_attention_by_loops.hpp"
#include "common/reference/rope_by_loops.hpp"

namespace {

double worst_of_heads(const std::vector<Matrix>& a, const std::vector<Matrix>& b) {
    double worst = a.size() == b.size() ? 0.0 : INFINITY;
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) worst = std::max(worst, max_abs_difference(a[i], b[i]));
    return worst;
}

// A causal weight matrix: exactly 0 above the diagonal.
bool causal(const Matrix& w) {
    for (std::size_t i = 0; i < rows(w); ++i)
        for (std::size_t j = i + 1; j < cols(w); ++j)
            if (w(i, j) != 0.0f) return false;
    return true;
}

// The largest Σ_c |a_c · b_c| over the rows of A and B: the size of a score before its scale.
double largest_dot_size(const Matrix& A, const Matrix& B) {
    double most = 0.0;
    for (std::size_t i = 0; i < rows(A); ++i)
        for (std::size_t j = 0; j < rows(B); ++j) {
            double s = 0.0;
            for (std::size_t c = 0; c < cols(A); ++c) s += std::abs(double(A(i, c)) * double(B(j, c)));
            most = std::max(most, s);
        }
    return most;
}

// The forms against the reference, their projections, and the RoPE part against its closed form.
void check_forms(SelfChecks& check, const Matrix& X, const LatentWeights& W, const LatentForms& r,
                 const LatentByLoops& ref) {
    const std::size_t n = rows(X), h = r.s.h;
    const double wide = double(cols(X) + r.s.d_cq + r.s.d_c + r.s.d_h + r.s.d_rope);  // the chained sums
    check.close("c_KV, K, V, Q = X · W_DKV, c_KV · W_UK, c_KV · W_UV, c_Q · W_UQ, summed in double",
                std::max({max_abs_difference(r.c_KV, ref.c_KV), max_abs_difference(r.K, ref.K),
                          max_abs_difference(r.V, ref.V), max_abs_difference(r.Q, ref.Q)}),
                scaled_tolerance(wide * FLT_EPSILON * 4, ref.K) + scaled_tolerance(wide * FLT_EPSILON * 4, ref.Q));
    check.close("K_rope and every head's Q_rope = RoPE as loops in double (rope_by_loops)",
                std::max(max_abs_difference(r.K_rope, ref.K_rope), max_abs_difference(r.Q_rope, ref.Q_rope)),
                scaled_tolerance(wide * FLT_EPSILON * 4, ref.Q_rope) + scaled_tolerance(wide * FLT_EPSILON * 4, ref.K_rope));
    double rope_error = 0.0, rope_size = 1.0;
    for (std::size_t i = 0; i < h; ++i) {
        const Matrix q = head_columns(r.Q_rope, h, i), unturned = head_columns(r.Q_rope_unturned, h, i);
        Matrix product = Matrix::from_shape({n, n});
        for (std::size_t a = 0; a < n; ++a)
            for (std::size_t b = 0; b < n; ++b) {
                double s = 0.0;
                for (std::size_t c = 0; c < cols(q); ++c) s += double(q(a, c)) * double(r.K_rope(b, c));
                product(a, b) = float(s);
            }
        rope_error = std::max(rope_error, max_abs_difference(product, rope_scores_by_distance(unturned, r.K_rope_unturned, 10000.0)));
        rope_size = std::max(rope_size, largest_dot_size(unturned, r.K_rope_unturned));
    }
    check.close("Q_rope_i · K_ropeᵀ = Σ_p (q·k)_p cos((j − i)θ_p) + (q × k)_p sin(…): a function of j − i",
                rope_error, 1e-5 * rope_size);
    // A float32 score is off by about `wide` roundings of the size its terms have; a weight
    // moves by less than its score, an output by n weights' worth of values.
    const double naive_scores = ref.heads.score_size;
    double absorbed_scores = 0.0;
    for (std::size_t i = 0; i < h; ++i)
        absorbed_scores = std::max(absorbed_scores, (largest_dot_size(head_columns(r.Q_absorbed, h, i), r.c_KV) +
                                                     largest_dot_size(head_columns(r.Q_rope, h, i), r.K_rope)) /
                                                        std::sqrt(double(r.s.d_h + r.s.d_rope)));
    const double naive_tolerance = std::max(1e-5, wide * FLT_EPSILON * naive_scores);
    const double absorbed_tolerance = std::max(1e-5, wide * FLT_EPSILON * std::max(naive_scores, absorbed_scores));
    check.close("naive weights = causal softmax((q_C·k_C + q_R·k_R) / √(d_h + d_h^R)), as loops in double",
                worst_of_heads(r.weights, ref.heads.weights), naive_tolerance);
    check.close("naive output = Σ_j w_j v_j of every head, · W_O, as loops in double",
                max_abs_difference(r.output_naive, ref.output),
                scaled_tolerance(1e-4, ref.output) + naive_tolerance * double(n) * largest_abs(r.V) * largest_column_sum(W.W_O));
    check.close("absorbed weights, from (Q_i · W_UK_iᵀ) · c_KVᵀ + Q_rope_i · K_ropeᵀ = the loops' weights",
                worst_of_heads(r.weights_absorbed, ref.heads.weights), absorbed_tolerance);
    const double absorbed_output_tolerance =
        scaled_tolerance(1e-4, ref.output) + absorbed_tolerance * double(n) * largest_abs(r.c_KV) * largest_column_sum(r.W_UVO);
    check.close("absorbed output, (weights_i · c_KV) · (W_UV_i · W_O_i) summed, = the loops' output",
                max_abs_difference(r.output_absorbed, ref.output), absorbed_output_tolerance);
    check.close("absorbed output = naive output, to float32 precision",
                max_abs_difference(r.output_absorbed, r.output_naive),
                absorbed_output_tolerance + scaled_tolerance(1e-4, ref.output) +
                    naive_tolerance * double(n) * largest_abs(r.V) * largest_column_sum(W.W_O));
    double row_sums = 0.0;
    bool all_causal = true;
    for (std::size_t i = 0; i < h; ++i) {
        row_sums = std::max({row_sums, worst_row_sum_error(r.weights[i]), worst_row_sum_error(r.weights_absorbed[i])});
        all_causal = all_causal && causal(r.weights[i]) && causal(r.weights_absorbed[i]);
    }
    check.that("both forms are causal: every weight above the diagonal is exactly 0", all_causal);
    check.close("every row of every head's weights sums to 1, in both forms", row_sums, row_sum_tolerance(n));
}

// The cache and the FLOPs against the published figures, worked out by hand.
void check_costs(SelfChecks& check, const LatentForms& r) {
    check.that(fmt::format("this layer caches d_c + d_h^R = {} + {} = {} numbers a token: c_KV's and K_rope's widths",
                           r.s.d_c, r.s.d_rope, r.cache_elements),
               r.cache_elements == cols(r.c_KV) + cols(r.K_rope) && r.mha_elements == cols(r.K) + cols(r.V));
    const PublishedModel v2 = published_model("DeepSeek-V2");
    check.that("DeepSeek-V2, Table 1: d_c = 4·d_h, d_h^R = d_h/2 give d_c + d_h^R = (9/2)·d_h (512 + 64 = 576)",
               v2.d_c == 4 * v2.d_h && 2 * v2.d_rope == v2.d_h &&
                   2 * mla_cache_elements(v2.d_c, v2.d_rope) == 9 * v2.d_h && mla_cache_elements(v2.d_c, v2.d_rope) == 576);
    check.that("… as much as GQA with 2.25 groups (Table 1): 4 × 576 = 2 × 9 × 128",
               4 * mla_cache_elements(v2.d_c, v2.d_rope) == gqa_cache_elements(9, v2.d_h));
    const std::vector<CacheRow> table = cache_table();
    const auto row = [&](const std::string& model, const std::string& attention) {
        for (const CacheRow& c : table)
            if (c.model == model && c.attention == attention) return c;
        return CacheRow{};
    };
    const CacheRow mla = row("DeepSeek-V3", "MLA"), mha = row("DeepSeek-V3", "MHA");
    check.that("DeepSeek-V3 with MLA: (512 + 64) × 61 × 2 = 70 272 bytes a token, 9 210 691 584 for 131 072 tokens",
               mla.bytes_per_token == 70272 && mla.context_bytes == 9210691584ULL);
    check.that("DeepSeek-V3's shape with MHA: 2 × 128 × 128 × 61 × 2 = 3 997 696 bytes a token (56.9 × MLA's)",
               mha.bytes_per_token == 3997696 && mha.context_bytes == 523986010112ULL);
    check.that("Mistral 7B and Llama 2 70B as chapter 15 counts them: 2 × layers × g × d_k × 2 bytes",
               row("Mistral 7B", "GQA, g = 8").bytes_per_token == kv_cache_bytes_per_token(32, 8, 128, 2) &&
                   row("Llama 2 70B", "GQA, g = 8").bytes_per_token == kv_cache_bytes_per_token(80, 8, 128, 2));
    LatentShape v3{128, 128, 512, 1536, 64};
    const DecodeFlops at_4k = decode_flops(7168, v3, 4096);
    check.that("V3, L = 4096, absorbed: 2·128·128·512 + 2·4096·128·1088 + 2·128·512·7168 = 2 097 152 000",
               at_4k.absorbed == 2097152000ULL);
    check.that("V3, L = 4096, naive over latents: 4·4096·512·128² + 2·4096·128·320 + 2·128²·7168 = 138 009 378 816",
               at_4k.naive_latent == 138009378816ULL);
    check.that("V3, L = 4096, naive over K and V: 4·512·128² + 2·4096·128·320 + 2·128²·7168 = 603 979 776",
               at_4k.naive_kv == 603979776ULL);
}

}  // namespace

void check_latent(SelfChecks& check, const Matrix& X, const LatentWeights& W, const LatentForms& r) {
    // The reference: MLA's definition in double; its scale 1/√(d_h + d_h^R) is its own.
    check_forms(check, X, W, r, latent_attention_by_loops(X, W, r.s.h));
    check_costs(check, r);
}
