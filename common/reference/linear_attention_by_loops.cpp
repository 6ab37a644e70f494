#include "common/reference/linear_attention_by_loops.hpp"

#include <vector>

Matrix linear_attention_by_loops(const Matrix& phi_Q, const Matrix& phi_K, const Matrix& V, bool normalise) {
    const std::size_t n = rows(phi_Q), d = cols(phi_Q), dv = cols(V);
    Matrix out = Matrix::from_shape({n, dv});
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<double> sum(dv, 0.0);
        double normaliser = 0.0;
        for (std::size_t j = 0; j <= i; ++j) {
            double score = 0.0;  // φq_i · φk_j
            for (std::size_t c = 0; c < d; ++c) score += double(phi_Q(i, c)) * double(phi_K(j, c));
            normaliser += score;
            for (std::size_t e = 0; e < dv; ++e) sum[e] += score * double(V(j, e));
        }
        for (std::size_t e = 0; e < dv; ++e)
            out(i, e) = float(!normalise ? sum[e] : normaliser > 0.0 ? sum[e] / normaliser : 0.0);
    }
    return out;
}
