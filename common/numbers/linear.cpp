#include "common/numbers/linear.hpp"

#include "common/numbers/input_error.hpp"
#include "common/numbers/matmul.hpp"

Matrix linear(const Matrix& x, const Matrix& W, const Vector& b) {
    if (b.size() != cols(W))
        throw InputError(describe("linear: a bias of ", b.size(), " for a W with ", cols(W), " columns"));
    Matrix y = matmul(x, W);  // (n × d_out)
    for (std::size_t i = 0; i < rows(y); ++i)
        for (std::size_t j = 0; j < cols(y); ++j) y(i, j) += b(j);
    return y;
}

Matrix as_row(const Vector& v) {
    Matrix m = Matrix::from_shape({std::size_t{1}, v.size()});
    for (std::size_t j = 0; j < v.size(); ++j) m(0, j) = v(j);
    return m;
}
