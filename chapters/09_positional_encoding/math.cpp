#include "chapters/09_positional_encoding/math.hpp"

#include <algorithm>
#include <cmath>

#include "common/math/matmul.hpp"
#include "common/math/project_in_double.hpp"
#include "common/math/positional_encoding.hpp"

Matrix positional_encoding(std::size_t n, std::size_t d_model) {
    Matrix PE = Matrix::from_shape({n, d_model});  // (n × d_model): one row per position
    // ┌ exercise sinusoidal
    for (std::size_t pos = 0; pos < n; ++pos)
        for (std::size_t c = 0; c < d_model; ++c) {  // columns 2i and 2i + 1 share ω_i = 1 / 10000^(2i/d_model)
            const std::size_t i = c / 2;
            const double angle = double(pos) / std::pow(10000.0, double(2 * i) / double(d_model));
            PE(pos, c) = static_cast<float>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    // └ stub: PE.fill(0.0f);
    return PE;
}

AttentionSteps self_attention(const Matrix& X, const Projections& W) {
    // (n × d_model) · (d_model × d_k) → (n × d_k), then softmax(Q · Kᵀ / √d_k) · V
    return scaled_dot_product_attention(matmul(X, W.W_Q), matmul(X, W.W_K), matmul(X, W.W_V));
}

AttentionByLoops attention_by_loops(const Matrix& X, const Projections& W) {
    const std::size_t n = rows(X), d_k = cols(W.W_Q), d_v = cols(W.W_V);
    // X · W_Q, X · W_K, X · W_V in double
    const auto Q = project_in_double(X, W.W_Q);
    const auto K = project_in_double(X, W.W_K);
    const auto V = project_in_double(X, W.W_V);
    const auto Q_size = project_in_double(X, W.W_Q, true);
    const auto K_size = project_in_double(X, W.W_K, true);
    AttentionByLoops r;
    r.weights = Matrix::from_shape({n, n});
    r.output = Matrix::from_shape({n, d_v});
    for (std::size_t q = 0; q < n; ++q) {
        std::vector<double> s(n);  // pass 1: this query's scaled scores
        for (std::size_t j = 0; j < n; ++j) {
            double dot = 0.0, size = 0.0;
            for (std::size_t c = 0; c < d_k; ++c) dot += Q[q][c] * K[j][c], size += Q_size[q][c] * K_size[j][c];
            s[j] = dot / std::sqrt(double(d_k));
            r.score_size = std::max(r.score_size, size / std::sqrt(double(d_k)));
        }
        const double top = *std::max_element(s.begin(), s.end());  // pass 2: exp and sum
        double z = 0.0;
        for (double& e : s) z += (e = std::exp(e - top));
        for (std::size_t c = 0; c < d_v; ++c) {  // pass 3: normalise, weigh the values
            double out = 0.0;
            for (std::size_t j = 0; j < n; ++j) out += s[j] / z * V[j][c];
            r.output(q, c) = static_cast<float>(out);
        }
        for (std::size_t j = 0; j < n; ++j) r.weights(q, j) = static_cast<float>(s[j] / z);
    }
    for (const auto& row : V)
        for (const double v : row) r.value_size = std::max(r.value_size, std::abs(v));
    return r;
}

double pe_formula_error(const Matrix& PE) {
    double worst = 0.0;
    for (std::size_t pos = 0; pos < rows(PE); ++pos)
        for (std::size_t c = 0; c < cols(PE); ++c) {
            const double exponent = double(2 * (c / 2)) / double(cols(PE));
            const double angle = double(pos) * std::exp(-exponent * std::log(10000.0));  // pos / 10000^exponent
            worst = std::max(worst, std::abs(PE(pos, c) - (c % 2 == 0 ? std::sin(angle) : std::cos(angle))));
        }
    return worst;
}

Matrix pe_dots(const std::vector<std::size_t>& starts, std::size_t ks, std::size_t d_pe) {
    const Matrix source = positional_encoding(starts.back() + ks, d_pe);
    Matrix dots = Matrix::from_shape({starts.size() + 1, ks});
    for (std::size_t r = 0; r < starts.size(); ++r)
        for (std::size_t k = 0; k < ks; ++k) {
            double dot = 0.0;  // PE(pos) · PE(pos + k) = Σ_i sin·sin + cos·cos = Σ_i cos(ω_i k)
            for (std::size_t c = 0; c < d_pe; ++c) dot += double(source(starts[r], c)) * source(starts[r] + k, c);
            dots(r, k) = static_cast<float>(dot);
        }
    for (std::size_t k = 0; k < ks; ++k) {  // the closed form: pos cancels
        double sum = 0.0;
        for (std::size_t i = 0; i < d_pe / 2; ++i) sum += std::cos(double(k) * pe_frequency(i, d_pe));
        dots(starts.size(), k) = static_cast<float>(sum);
    }
    return dots;
}

PositionalLesson positional_lesson(const Matrix& X, const Projections& W, const Order& order, std::size_t shift,
                                   std::size_t max_pos, std::size_t d_pe) {
    const std::size_t n = rows(X), d_model = cols(X);
    PositionalLesson r;
    // pass 1: attention without positions, on both orders
    r.X_b = permute_rows(X, order);
    r.plain_a = self_attention(X, W);
    r.plain_b = self_attention(r.X_b, W);
    r.plain_a_by_loops = attention_by_loops(X, W);
    // pass 2: the encoding belongs to the positions: both sentences get the same PE
    r.PE = positional_encoding(n, d_model);
    r.X_plus_PE = X + r.PE;
    r.X_b_plus_PE = r.X_b + r.PE;
    r.pe_a = self_attention(r.X_plus_PE, W);
    r.pe_b = self_attention(r.X_b_plus_PE, W);
    r.pe_a_by_loops = attention_by_loops(r.X_plus_PE, W);
    // pass 3: the shift M_k, applied to every position of a longer encoding
    r.M_k = pe_shift_matrix(shift, d_model);
    const std::size_t paired = d_model - d_model % 2;  // columns with a sin–cos partner
    const Matrix PE_rot = positional_encoding(max_pos + shift, d_model);  // (max_pos + k × d_model)
    Matrix from = Matrix::from_shape({max_pos, d_model});
    r.PE_to = Matrix::from_shape({max_pos, paired});
    for (std::size_t pos = 0; pos < max_pos; ++pos)
        for (std::size_t c = 0; c < d_model; ++c) {
            from(pos, c) = PE_rot(pos, c);
            if (c < paired) r.PE_to(pos, c) = PE_rot(pos + shift, c);
        }
    const Matrix moved = matmul(from, r.M_k);  // (max_pos × d_model): PE(pos) · M_k
    r.moved = Matrix::from_shape({max_pos, paired});
    for (std::size_t pos = 0; pos < max_pos; ++pos)
        for (std::size_t c = 0; c < paired; ++c) r.moved(pos, c) = moved(pos, c);
    // pass 4: a longer encoding, and its dot products
    r.PE_long = positional_encoding(max_pos, d_pe);
    r.formula_error = std::max(pe_formula_error(r.PE), pe_formula_error(r.PE_long));
    r.starts = {0, 1, 2, 5, 10, 20};
    r.PE_dots = pe_dots(r.starts, 8, d_pe);
    return r;
}
