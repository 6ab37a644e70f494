#include "chapters/09_positional_encoding/math.hpp"

#include <algorithm>
#include <cmath>

#include <xtensor/xmath.hpp>

#include "common/attention/positional_encoding.hpp"
#include "common/numbers/matmul.hpp"

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

Projected project(const Matrix& X, const Projections& W) {
    // (n × d_model) · (d_model × d_k) → (n × d_k), and likewise for the values
    return {matmul(X, W.W_Q), matmul(X, W.W_K), matmul(X, W.W_V)};
}

AttentionSteps self_attention(const Projected& p) { return scaled_dot_product_attention(p.Q, p.K, p.V); }

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

namespace {

double largest_difference(const Matrix& a, const Matrix& b) { return double(xt::amax(xt::abs(a - b))()); }

}  // namespace

WithAndWithoutPositions with_and_without_positions(const Matrix& X, const Projections& W, const Order& order, std::size_t watched,
                                   std::size_t shift, std::size_t max_pos, std::size_t d_pe) {
    const std::size_t n = rows(X), d_model = cols(X);
    WithAndWithoutPositions r;
    r.X = X;
    r.W = W;
    r.watched = watched;
    r.watched_b = static_cast<std::size_t>(std::find(order.begin(), order.end(), watched) - order.begin());
    // pass 1: attention without positions, on both orders
    r.X_b = permute_rows(X, order);
    r.qkv_a = project(X, W);
    r.plain_a = self_attention(r.qkv_a);
    r.plain_b = self_attention(project(r.X_b, W));
    // pass 2: the encoding belongs to the positions: both sentences get the same PE
    r.PE = positional_encoding(n, d_model);
    r.X_plus_PE = X + r.PE;
    r.X_b_plus_PE = r.X_b + r.PE;
    r.qkv_pe_a = project(r.X_plus_PE, W);
    r.pe_a = self_attention(r.qkv_pe_a);
    r.pe_b = self_attention(project(r.X_b_plus_PE, W));
    r.top_a = argmax_of_row(r.pe_a.weights, r.watched);
    r.top_b = argmax_of_row(r.pe_b.weights, r.watched_b);
    for (std::size_t c = 0; c < cols(r.pe_a.output); ++c)
        r.pe_change = std::max(r.pe_change, double(std::abs(r.pe_b.output(r.watched_b, c) - r.pe_a.output(r.watched, c))));
    // pass 3: the shift M_k, applied to every position of a longer encoding
    r.shift = shift;
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
    r.rotation_error = largest_difference(r.moved, r.PE_to);
    // pass 4: a longer encoding, and its dot products
    r.PE_long = positional_encoding(max_pos, d_pe);
    r.starts = {0, 1, 2, 5, 10, 20};
    r.PE_dots = pe_dots(r.starts, 8, d_pe);
    return r;
}
