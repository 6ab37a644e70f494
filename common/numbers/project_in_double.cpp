#include "common/numbers/project_in_double.hpp"

#include <algorithm>
#include <cmath>

std::vector<std::vector<double>> project_in_double(const Matrix& X, const Matrix& W, bool absolute) {
    std::vector<std::vector<double>> P(rows(X), std::vector<double>(cols(W), 0.0));
    for (std::size_t t = 0; t < rows(X); ++t)
        for (std::size_t d = 0; d < cols(X); ++d)
            for (std::size_t c = 0; c < cols(W); ++c)
                P[t][c] += absolute ? std::abs(double(X(t, d)) * W(d, c)) : double(X(t, d)) * W(d, c);
    return P;
}

Matrix times_in_double(const std::vector<std::vector<double>>& A, const Matrix& W) {
    Matrix product = Matrix::from_shape({A.size(), cols(W)});
    for (std::size_t d = 0; d < cols(W); ++d)
        for (std::size_t q = 0; q < A.size(); ++q) {
            double sum = 0.0;
            for (std::size_t c = 0; c < rows(W); ++c) sum += A[q][c] * W(c, d);
            product(q, d) = static_cast<float>(sum);
        }
    return product;
}

double largest_abs(const std::vector<std::vector<double>>& A) {
    double largest = 0.0;
    for (const auto& row : A)
        for (const double a : row) largest = std::max(largest, std::abs(a));
    return largest;
}

double largest_abs(const Matrix& A) {
    double largest = 0.0;
    for (const float a : A) largest = std::max(largest, double(std::abs(a)));
    return largest;
}

double largest_column_sum(const Matrix& W) {
    double largest = 0.0;
    for (std::size_t d = 0; d < cols(W); ++d) {
        double column = 0.0;
        for (std::size_t c = 0; c < rows(W); ++c) column += std::abs(double(W(c, d)));
        largest = std::max(largest, column);
    }
    return largest;
}
