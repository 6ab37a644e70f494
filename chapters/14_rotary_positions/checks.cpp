#include "chapters/14_rotary_positions/checks.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/display/print.hpp"
#include "common/numbers/project_in_double.hpp"
#include "common/reference/attention_by_loops.hpp"
#include "common/reference/rope_by_loops.hpp"

namespace {

// The longest pair (a, b) of Q or K: what rounding in a rotation is relative to; and the
// largest Σ_i |q_pair_i|·|k_pair_i|: what rounding in a score is relative to.
struct PairSizes {
    double pair = 0.0, score = 0.0;
};
PairSizes pair_sizes(const Matrix& Q, const Matrix& K) {
    const auto length = [](const Matrix& M, std::size_t t, std::size_t p) {
        return std::hypot(double(M(t, p)), double(M(t, p + 1)));
    };
    PairSizes s;
    for (std::size_t m = 0; m < rows(Q); ++m)
        for (std::size_t j = 0; j < rows(K); ++j) {
            double score = 0.0;
            for (std::size_t p = 0; p + 1 < cols(Q); p += 2) {
                score += length(Q, m, p) * length(K, j, p);
                s.pair = std::max({s.pair, length(Q, m, p), length(K, j, p)});
            }
            s.score = std::max(s.score, score);
        }
    return s;
}

Matrix transposed(const Matrix& M) {
    Matrix T = Matrix::from_shape({cols(M), rows(M)});
    for (std::size_t i = 0; i < rows(M); ++i)
        for (std::size_t j = 0; j < cols(M); ++j) T(j, i) = M(i, j);
    return T;
}

// max |scores − Q_rot · K_rotᵀ| with the products summed in double (project_in_double).
double largest_difference(const Matrix& scores, const Matrix& Q_rot, const Matrix& K_rot) {
    const std::vector<std::vector<double>> by_loops = project_in_double(Q_rot, transposed(K_rot));
    double worst = 0.0;
    for (std::size_t i = 0; i < rows(scores); ++i)
        for (std::size_t j = 0; j < cols(scores); ++j) worst = std::max(worst, std::abs(scores(i, j) - by_loops[i][j]));
    return worst;
}

}  // namespace

void check_rope(SelfChecks& check, const RotatedScores& r, double base, bool default_data) {
    const std::size_t n = rows(r.Q), d_k = cols(r.Q);
    double theta_error = 0.0;  // θ_i = 1 / base^(2i/d_k), by exp and log
    for (std::size_t i = 0; i < r.theta.size(); ++i)
        theta_error =
            std::max(theta_error, std::abs(r.theta[i] - std::exp(-std::log(base) * double(2 * i) / double(d_k))));
    check.close("θ_i = base^(−2i/d_k), again by exp and log", theta_error, 1e-12);
    // A turned entry rounds its cos and sin and two products: a few float units of its pair.
    const PairSizes size = pair_sizes(r.Q, r.K);
    const Matrix Q_rot = rope_by_loops(r.Q, r.offset, base), K_rot = rope_by_loops(r.K, r.offset, base);
    const double rotation_tolerance = std::max(1e-6, 4.0 * FLT_EPSILON * size.pair);
    check.close("Q_rot = explicit 2×2 rotation matrices, in double", max_abs_difference(r.Q_rot, Q_rot),
                rotation_tolerance);
    check.close("K_rot = explicit 2×2 rotation matrices, in double", max_abs_difference(r.K_rot, K_rot),
                rotation_tolerance);
    // A score sums d_k products of turned entries: (d_k + 8) float units of Σ |q_pair|·|k_pair|.
    const double score_tolerance = std::max(1e-6, double(d_k + 8) * FLT_EPSILON * size.score);
    check.close("scores = Σ_c q_rot·k_rot, loops in double", largest_difference(r.scores, Q_rot, K_rot),
                score_tolerance);
    // The reference attention on the reference's turned queries and keys (V does not
    // change the weights): it scales by 1/√d_k on its own.
    check.close("weights = softmax(scores / √d_k), loops in double",
                max_abs_difference(r.weights, attention_by_loops(Q_rot, K_rot, K_rot).weights),
                score_tolerance / std::sqrt(double(d_k)) + row_sum_tolerance(n));
    check.close("scores = q · R((n − m)θ) k: a function of m − n alone",
                max_abs_difference(r.scores, rope_scores_by_distance(r.Q, r.K, base)), score_tolerance);
    double rope_change = 0.0, pe_change = 0.0;
    for (std::size_t k = 0; k < r.offsets.size(); ++k)
        rope_change = std::max(rope_change, double(r.offset_changes(k, 0))),
        pe_change = std::max(pe_change, double(r.offset_changes(k, 1)));
    check.close(fmt::format("RoPE: scores at offsets 1 … {} = scores at offset 0", r.offsets.back()), rope_change,
                2.0 * score_tolerance);
    const std::string pe_claim =
        fmt::format("X + PE: the scores move with the offset (by up to {})", format_number(float(pe_change), 3));
    if (default_data || pe_change > 100.0 * score_tolerance)
        check.that(pe_claim, pe_change > 100.0 * score_tolerance);
    else
        check.skip(pe_claim, "within 100 × the float rounding of scores this large");
    check.close("split halves of Q in halves order = Q_rot in halves order",
                max_abs_difference(r.Q_rot_halves, permute_columns(r.Q_rot, halves_order(d_k))), rotation_tolerance);
    check.close("split halves, permuted to match: the scores of interleaved", r.halves_change, 2.0 * score_tolerance);
    const std::string mixed_claim =
        fmt::format("mixed up, the scores differ (by up to {})", format_number(r.mixed_change, 3));
    if (d_k == 2)
        check.skip(mixed_claim, "d_k = 2: one pair, both layouts turn columns 0 and 1");
    else if (default_data || r.mixed_change > 100.0 * score_tolerance)
        check.that(mixed_claim, r.mixed_change > 100.0 * score_tolerance);
    else
        check.skip(mixed_claim, "within 100 × the float rounding of these scores");
    double decay_error = 0.0;  // q = k = ones of width d: q_rot(0) · k_rot(Δ) / d = (2/d) Σ_i cos(Δ θ_i)
    for (std::size_t delta = 0; delta < rows(r.decay); ++delta) {
        double closed = 0.0;
        for (std::size_t i = 0; 2 * i < r.decay_d; ++i)
            closed += 2.0 * std::cos(double(delta) * std::exp(-std::log(base) * double(2 * i) / double(r.decay_d))) /
                      double(r.decay_d);
        decay_error = std::max(decay_error, std::abs(double(r.decay(delta, 0)) - closed));
    }
    check.close("decay: q_rot(0) · k_rot(Δ) / d = (2/d) Σ_i cos(Δ θ_i)", decay_error, 4e-6);
}
