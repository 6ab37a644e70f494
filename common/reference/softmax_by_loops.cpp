#include "common/reference/softmax_by_loops.hpp"

#include <cmath>
#include <limits>
#include <vector>

Matrix softmax_by_loops(const Matrix& scores) {
    const std::size_t n = rows(scores), m = cols(scores);
    Matrix weights = Matrix::from_shape({n, m});
    std::vector<double> e(m);
    for (std::size_t i = 0; i < n; ++i) {
        // 1. the row maximum (NaN, if any, is carried through the exp()s below)
        double largest = -std::numeric_limits<double>::infinity();
        bool has_nan = false;
        for (std::size_t j = 0; j < m; ++j) {
            const double s = scores(i, j);
            has_nan = has_nan || std::isnan(s);
            if (s > largest) largest = s;
        }
        if (largest == -std::numeric_limits<double>::infinity() && !has_nan) {  // every key hidden
            for (std::size_t j = 0; j < m; ++j) weights(i, j) = 0.0f;
            continue;
        }
        // 2. exp(s − m_i) and their sum
        double sum = 0.0;
        for (std::size_t j = 0; j < m; ++j) sum += e[j] = std::exp(double(scores(i, j)) - largest);
        // 3. normalise
        for (std::size_t j = 0; j < m; ++j) weights(i, j) = float(e[j] / sum);
    }
    return weights;
}
