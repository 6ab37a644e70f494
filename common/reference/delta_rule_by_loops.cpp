#include "common/reference/delta_rule_by_loops.hpp"

DeltaRuleByLoops delta_rule_by_loops(const Matrix& Q, const Matrix& K, const Matrix& V, const std::vector<double>& beta,
                                     const std::vector<double>& alpha) {
    const std::size_t n = rows(K), dk = cols(K), dv = cols(V);
    std::vector<std::vector<double>> S(dk, std::vector<double>(dv, 0.0));
    DeltaRuleByLoops r{Matrix::from_shape({n, dv}), Matrix::from_shape({dk, dv})};
    for (std::size_t t = 0; t < n; ++t) {
        const double a = alpha.empty() ? 1.0 : alpha[t];
        for (std::size_t e = 0; e < dv; ++e) {
            double read = 0.0;  // (α_t S_{t−1}ᵀ k_t)_e
            for (std::size_t c = 0; c < dk; ++c) read += a * S[c][e] * double(K(t, c));
            const double error = double(V(t, e)) - read;
            for (std::size_t c = 0; c < dk; ++c) S[c][e] = a * S[c][e] + beta[t] * double(K(t, c)) * error;
        }
        for (std::size_t e = 0; e < dv; ++e) {
            double o = 0.0;
            for (std::size_t c = 0; c < dk; ++c) o += S[c][e] * double(Q(t, c));
            r.output(t, e) = float(o);
        }
    }
    for (std::size_t c = 0; c < dk; ++c)
        for (std::size_t e = 0; e < dv; ++e) r.state(c, e) = float(S[c][e]);
    return r;
}
