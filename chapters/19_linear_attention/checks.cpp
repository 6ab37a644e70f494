#include "chapters/19_linear_attention/checks.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/display/print.hpp"
#include "common/reference/attention_by_loops.hpp"
#include "common/reference/delta_rule_by_loops.hpp"
#include "common/reference/linear_attention_by_loops.hpp"

namespace {

// float32 against double for a result of the size of `values` built from sums of `terms`
// products: each addition may round by one unit in the last place.
double summed_tolerance(std::size_t terms, const Matrix& values) {
    return std::max(1e-5, 4.0 * double(terms) * FLT_EPSILON) * std::max(1.0, double(xt::amax(xt::abs(values))()));
}

// |Sᵀk_i − v_i| for every pair, in double, from a state S (d × d_v).
std::vector<double> read_back_errors(const Matrix& S, const Matrix& keys, const Matrix& values) {
    std::vector<double> errors;
    for (std::size_t i = 0; i < rows(keys); ++i) {
        double e = 0;
        for (std::size_t c = 0; c < cols(values); ++c) {
            double read = 0;
            for (std::size_t j = 0; j < cols(keys); ++j) read += double(S(j, c)) * keys(i, j);
            e += (read - values(i, c)) * (read - values(i, c));
        }
        errors.push_back(std::sqrt(e));
    }
    return errors;
}
// The largest |a_i − column c of m|.
double column_difference(const std::vector<double>& a, const Matrix& m, std::size_t c) {
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - m(i, c)));
    return std::isnan(m(0, c)) ? INFINITY : worst;
}
// `keys` (and `values`) written `times` times over, one after the other.
Matrix repeated(const Matrix& m, std::size_t times) {
    Matrix out({rows(m) * times, cols(m)});
    for (std::size_t i = 0; i < rows(out); ++i)
        for (std::size_t c = 0; c < cols(m); ++c) out(i, c) = m(i % rows(m), c);
    return out;
}

void check_memory(SelfChecks& check, const Memory& m) {
    const std::size_t pairs = rows(m.values), last = pairs - 1, sweeps = rows(m.sweep_errors);
    const double tol = summed_tolerance(memory_width * sweeps * pairs, m.values);
    // linear attention's state: S = Σ_j k_j v_jᵀ, by loops
    Matrix S_linear = xt::zeros<float>({memory_width, memory_value_width});
    for (std::size_t j = 0; j < pairs; ++j)
        for (std::size_t a = 0; a < memory_width; ++a)
            for (std::size_t c = 0; c < memory_value_width; ++c)
                S_linear(a, c) += m.keys_correlated(j, a) * m.values(j, c);
    check.close("linear attention's state, correlated keys = Σ_j k_j v_jᵀ (loops)",
                max_abs_difference(m.state_linear, S_linear), tol);
    const std::vector<double> ones(pairs * sweeps, 1.0);
    const DeltaRuleByLoops once = delta_rule_by_loops(m.keys_correlated, m.keys_correlated, m.values, ones);
    const DeltaRuleByLoops swept = delta_rule_by_loops(repeated(m.keys_correlated, sweeps),
                                                       repeated(m.keys_correlated, sweeps),
                                                       repeated(m.values, sweeps), ones);
    check.close("the delta rule's state after one sweep and after all = the reference loops (double)",
                std::max(max_abs_difference(m.state_delta, once.state),
                         max_abs_difference(m.state_delta_swept, swept.state)), tol);
    const DeltaRuleByLoops orthogonal =
        delta_rule_by_loops(m.keys_orthogonal, m.keys_orthogonal, m.values, std::vector<double>(pairs, 1.0));
    check.close("read-back errors after one sweep = |Sᵀk_i − v_i| of the reference states",
                std::max({column_difference(read_back_errors(orthogonal.state, m.keys_orthogonal, m.values),
                                            m.pair_errors, 1),
                          column_difference(read_back_errors(S_linear, m.keys_correlated, m.values), m.pair_errors, 2),
                          column_difference(read_back_errors(once.state, m.keys_correlated, m.values),
                                            m.pair_errors, 3)}), tol);
    const double orthogonal_worst = std::max(m.sweep_errors(0, 0), m.sweep_errors(0, 1));
    check.close("orthogonal keys: linear attention and the delta rule read every v back (one sweep)",
                orthogonal_worst, tol);
    check.close("correlated keys, β = 1: the delta rule reads the last pair back exactly",
                m.pair_errors(last, 3), tol);
    float smallest = INFINITY;
    for (std::size_t i = 0; i < pairs; ++i) smallest = std::min(smallest, m.pair_errors(i, 2));
    check.that(fmt::format("correlated keys: linear attention misreads every pair (smallest error {} > 0.1)",
                           format_number(smallest, 3)), smallest > 0.1f);
    check.that(fmt::format("correlated keys: later writes disturb the delta rule's first pair ({} > 0.1)",
                           format_number(m.pair_errors(0, 3), 3)), m.pair_errors(0, 3) > 0.1f);
    check.that(fmt::format("more sweeps: the delta rule's largest error falls below 1% of the first sweep's ({} < {})",
                           format_number(m.sweep_errors(sweeps - 1, 3), 5),
                           format_number(0.01f * m.sweep_errors(0, 3), 5)),
               m.sweep_errors(sweeps - 1, 3) < 0.01f * m.sweep_errors(0, 3));
    check.that("more sweeps: linear attention's largest error does not shrink",
               m.sweep_errors(sweeps - 1, 2) >= m.sweep_errors(0, 2));
}

}  // namespace

void check_recurrences(SelfChecks& check, const Recurrences& r, const Settings& s) {
    const std::size_t n = rows(r.V), d = cols(r.phi_Q);
    const Matrix reference = linear_attention_by_loops(r.phi_Q, r.phi_K, r.V);
    const double tol = summed_tolerance(n * d, r.V);
    check.that("φ(Q) and φ(K) have no negative entry (the normaliser φq · z is ≥ 0)",
               xt::amin(r.phi_Q)() >= 0.0f && xt::amin(r.phi_K)() >= 0.0f);
    check.close("parallel form = Σ_{j≤i} (φq_i·φk_j) v_j / Σ_{j≤i} φq_i·φk_j (loops, double)",
                max_abs_difference(r.output_parallel, reference), tol);
    check.close("recurrent form (a d × d state and a d vector) = the same loops",
                max_abs_difference(r.output_recurrent, reference), tol);
    check.close(fmt::format("chunked form, C = {} = the same loops", s.chunk),
                max_abs_difference(r.output_chunked, reference), tol);
    double length_error = 0;  // of the rows that are not 0 (a query or key of zeros stays 0)
    for (const auto& [unit, raw] : {std::pair{&r.delta_Q, &r.Q}, std::pair{&r.delta_K, &r.K}})
        for (std::size_t i = 0; i < n; ++i) {
            double squares = 0, raw_squares = 0;
            for (std::size_t c = 0; c < d; ++c)
                squares += double((*unit)(i, c)) * (*unit)(i, c), raw_squares += double((*raw)(i, c)) * (*raw)(i, c);
            if (raw_squares > 0) length_error = std::max(length_error, std::abs(std::sqrt(squares) - 1.0));
        }
    check.close("the delta rule's keys and queries have length 1 (those that are not 0)", length_error, 1e-5);
    check.that("every β_t and every α_t is in [0, 1] (σ of a very negative number rounds to 0)",
               xt::amin(r.beta)() >= 0.0f && xt::amax(r.beta)() <= 1.0f && xt::amin(r.alpha)() > 0.0f &&
                   xt::amax(r.alpha)() <= 1.0f);
    const std::vector<double> beta(r.beta.begin(), r.beta.end()), alpha(r.alpha.begin(), r.alpha.end());
    const DeltaRuleByLoops delta = delta_rule_by_loops(r.delta_Q, r.delta_K, r.delta_V, beta);
    const DeltaRuleByLoops gated = delta_rule_by_loops(r.delta_Q, r.delta_K, r.delta_V, beta, alpha);
    check.close("delta rule: o_t = S_tᵀ q_t and S_n = the reference loops (double)",
                std::max(max_abs_difference(r.output_delta, delta.output),
                         max_abs_difference(r.state_final, delta.state)), tol);
    check.close("gated delta rule: o_t and S_n = the reference loops with α (double)",
                std::max(max_abs_difference(r.output_gated, gated.output),
                         max_abs_difference(r.state_gated, gated.state)), tol);
    check_memory(check, r.memory);
}

void check_side_by_side(SelfChecks& check, const SideBySide& r) {
    for (std::size_t m = 0; m < r.models.size(); ++m) {
        const Mixer mixer = trained_mixers[m];
        const std::string name = mixer_name(mixer);
        check.close(fmt::format("{}: backward pass = central differences (relative, double, {} entries)", name,
                                r.gradient_checks[m].entries),
                    r.gradient_checks[m].max_relative_error, 1e-6);
        // every head of the trained model on the held-out sequence, against the loops in double
        const ModelForward<float>& f = r.shown_forward[m];
        double worst = 0, tolerance = 1;  // the head farthest from its reference, relative to its tolerance
        for (std::size_t k = 0; k < f.Z.size(); ++k) {
            Matrix expected;
            if (mixer == Mixer::softmax) {
                expected = attention_by_loops(f.Q[k], f.K[k], f.V[k], KeysSeen::causal()).output;
            } else if (mixer == Mixer::linear) {
                expected = linear_attention_by_loops(feature_map(f.Q[k], FeatureMap::elu1),
                                                     feature_map(f.K[k], FeatureMap::elu1), f.V[k]);
            } else {
                const std::vector<double> beta(f.beta[k].begin(), f.beta[k].end());
                const std::vector<double> alpha =
                    mixer == Mixer::gated_delta ? std::vector<double>(f.alpha[k].begin(), f.alpha[k].end())
                                                : std::vector<double>();
                expected = delta_rule_by_loops(unit_rows(f.Q[k]), unit_rows(f.K[k]), f.V[k], beta, alpha).output;
            }
            const double e = max_abs_difference(f.Z[k], expected);
            const double t = summed_tolerance(rows(f.Q[k]) * cols(f.Q[k]), f.V[k]);
            if (std::isnan(e) || e / t > worst / tolerance) worst = e, tolerance = t;
        }
        const char* formula = mixer == Mixer::softmax  ? "causal softmax(q·k/√d_h) v"
                              : mixer == Mixer::linear ? "linear attention, φ = elu + 1"
                              : mixer == Mixer::delta  ? "the delta rule"
                                                       : "the gated delta rule";
        check.close(fmt::format("{}: every trained head's output on a held-out sequence = {} (loops, double)", name,
                                formula), worst, tolerance);
    }
}
