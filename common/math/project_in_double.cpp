#include "common/math/project_in_double.hpp"

#include <cmath>

std::vector<std::vector<double>> project_in_double(const Matrix& X, const Matrix& W, bool absolute) {
    std::vector<std::vector<double>> P(rows(X), std::vector<double>(cols(W), 0.0));
    for (std::size_t t = 0; t < rows(X); ++t)
        for (std::size_t d = 0; d < cols(X); ++d)
            for (std::size_t c = 0; c < cols(W); ++c)
                P[t][c] += absolute ? std::abs(double(X(t, d)) * W(d, c)) : double(X(t, d)) * W(d, c);
    return P;
}
