#include "chapters/09_positional_encoding/checks.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include <fmt/format.h>
#include <xtensor/xview.hpp>

#include "common/display/print.hpp"
#include "common/lesson/attention_tolerance.hpp"
#include "common/reference/attention_by_loops.hpp"
#include "common/reference/positional_encoding_by_formula.hpp"

void check_positions(SelfChecks& check, const WithAndWithoutPositions& r, const Order& order, const std::string& word,
                     std::size_t max_pos) {
    const std::size_t n = rows(r.X);
    check.close("PE = the paper's formula, again in double (PE and PE_long)",
                std::max(pe_formula_error(r.PE), pe_formula_error(r.PE_long)), 1e-6);
    // Permuted, each softmax and each Σ_j w_j v_j adds the same terms in another order:
    // float32 rounding of a sum of n terms (row_sum_tolerance) of the values' size.
    const double permuted_tolerance = scaled_tolerance(row_sum_tolerance(n), r.qkv_a.V);
    check.close("without PE: output_B = P · output_A (rows permuted alike)",
                max_abs_difference(r.plain_b.output, permute_rows(r.plain_a.output, order)), permuted_tolerance);
    const Matrix watched_a = xt::view(r.plain_a.output, xt::range(r.watched, r.watched + 1), xt::all());
    const Matrix watched_b = xt::view(r.plain_b.output, xt::range(r.watched_b, r.watched_b + 1), xt::all());
    check.close(fmt::format("without PE, \"{}\" gets the same output in both sentences", word),
                max_abs_difference(watched_b, watched_a), permuted_tolerance);
    const double pe_breaks = max_abs_difference(r.pe_b.output, permute_rows(r.pe_a.output, order));
    check.that(fmt::format("with PE, the outputs are no longer permuted copies (largest difference {})",
                           format_number(float(pe_breaks), 3)),
               pe_breaks > 1e-3);
    // The reference attention, in double from the same Q, K, V of X + PE, within what
    // float32 rounding of scores of this size allows (common/lesson/attention_tolerance.hpp).
    const Projected& p = r.qkv_pe_a;
    const AttentionByLoops loops = attention_by_loops(p.Q, p.K, p.V);
    const AttentionTolerance tolerance = attention_tolerance(p.Q, p.K, p.V);
    check.close("weights of X + PE = softmax(q·k_j/√d_k), loops in double",
                max_abs_difference(r.pe_a.weights, loops.weights), tolerance.weights);
    check.close("attention(X + PE): output = Σ_j w_j v_j as loops in double",
                max_abs_difference(r.pe_a.output, loops.output), tolerance.output);
    check.close(fmt::format("PE(pos + {0}) = PE(pos) · M_{0} for every pos < {1}", r.shift, max_pos),
                r.rotation_error, 1e-5);
    // A row of PE_dots sums d_pe products of floats (each off by FLT_EPSILON/2 at most,
    // and each pair (sin, cos) adds up to 1 at most) into a number up to d_pe/2, stored as
    // float like the closed form: together at most d_pe · FLT_EPSILON apart.
    const std::size_t d_pe = cols(r.PE_long), last = r.starts.size();
    double dot_error = 0.0;
    for (std::size_t row = 0; row < last; ++row)
        for (std::size_t k = 0; k < cols(r.PE_dots); ++k)
            dot_error = std::max(dot_error, double(std::abs(r.PE_dots(row, k) - r.PE_dots(last, k))));
    check.close("PE(pos) · PE(pos + k) = Σ_i cos(ω_i k), whatever pos", dot_error,
                std::max(1e-5, double(d_pe) * FLT_EPSILON));
}
