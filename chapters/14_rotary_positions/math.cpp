#include "chapters/14_rotary_positions/math.hpp"

#include <algorithm>
#include <cmath>
#include <complex>

#include "common/math/input_error.hpp"
#include "common/math/matmul.hpp"
#include "common/math/softmax.hpp"

std::vector<double> rope_frequencies(std::size_t d_k, double base) {
    std::vector<double> theta(d_k / 2);
    for (std::size_t i = 0; i < theta.size(); ++i) theta[i] = std::pow(base, -double(2 * i) / double(d_k));
    return theta;
}

Matrix rope_angles(std::size_t n, std::size_t offset, const std::vector<double>& theta) {
    Matrix angles = Matrix::from_shape({n, theta.size()});
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t i = 0; i < theta.size(); ++i) angles(t, i) = float(double(offset + t) * theta[i]);
    return angles;
}

Matrix rotate_interleaved(const Matrix& M, std::size_t offset, const std::vector<double>& theta) {
    Matrix out = M;  // (n × d)
    // ┌ exercise rotate-interleaved
    for (std::size_t t = 0; t < rows(M); ++t)
        for (std::size_t i = 0; i < theta.size(); ++i) {
            // the angle in double: (offset + t) · θ_i reaches 10⁶ radians, where a float is off by 0.03
            const double angle = double(offset + t) * theta[i];
            const float c = float(std::cos(angle)), s = float(std::sin(angle));
            const std::size_t a = 2 * i, b = 2 * i + 1;  // the pair
            out(t, a) = M(t, a) * c - M(t, b) * s;
            out(t, b) = M(t, a) * s + M(t, b) * c;
        }
    // └ stub: return M;
    return out;
}

Matrix rotate_split_halves(const Matrix& M, std::size_t offset, const std::vector<double>& theta) {
    Matrix out = M;  // (n × d)
    const std::size_t half = cols(M) / 2;
    for (std::size_t t = 0; t < rows(M); ++t)
        for (std::size_t i = 0; i < half; ++i) {
            const double angle = double(offset + t) * theta[i];
            const float c = float(std::cos(angle)), s = float(std::sin(angle));
            // rotate_half: (x1, x2) → (−x2, x1), then x · cos + rotate_half(x) · sin
            out(t, i) = M(t, i) * c - M(t, i + half) * s;
            out(t, i + half) = M(t, i + half) * c + M(t, i) * s;
        }
    return out;
}

Order halves_order(std::size_t d) {
    Order order;
    for (std::size_t c = 0; c < d; c += 2) order.push_back(c);
    for (std::size_t c = 1; c < d; c += 2) order.push_back(c);
    return order;
}

Matrix sinusoids_at(std::size_t n, std::size_t offset, std::size_t d_model, double base) {
    Matrix PE = Matrix::from_shape({n, d_model});
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t c = 0; c < d_model; ++c) {
            const double angle = double(offset + t) * std::pow(base, -double(2 * (c / 2)) / double(d_model));
            PE(t, c) = float(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    return PE;
}

RopeByLoops rope_by_loops(const Matrix& Q, const Matrix& K, std::size_t offset, double base) {
    const std::size_t n = rows(Q), d_k = cols(Q);
    RopeByLoops r;
    // pass 1: each pair times its rotation matrix R = [[cos, −sin], [sin, cos]], in double
    std::vector<std::vector<double>> Qr(n, std::vector<double>(d_k)), Kr = Qr;
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t p = 0; p + 1 < d_k; p += 2) {
            const double angle = double(offset + t) * std::exp(-double(p) / double(d_k) * std::log(base));
            const double R[2][2] = {{std::cos(angle), -std::sin(angle)}, {std::sin(angle), std::cos(angle)}};
            for (int row = 0; row < 2; ++row) {
                Qr[t][p + row] = R[row][0] * Q(t, p) + R[row][1] * Q(t, p + 1);
                Kr[t][p + row] = R[row][0] * K(t, p) + R[row][1] * K(t, p + 1);
            }
            r.pair_size = std::max({r.pair_size, std::hypot(double(Q(t, p)), double(Q(t, p + 1))),
                                    std::hypot(double(K(t, p)), double(K(t, p + 1)))});
        }
    r.Q_rot = Matrix::from_shape({n, d_k});
    r.K_rot = Matrix::from_shape({n, d_k});
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t c = 0; c < d_k; ++c) r.Q_rot(t, c) = float(Qr[t][c]), r.K_rot(t, c) = float(Kr[t][c]);
    // pass 2: scores and weights, one query at a time; the closed form from Q and K unrotated
    r.scores = r.weights = r.closed_form = Matrix::from_shape({n, n});
    for (std::size_t m = 0; m < n; ++m) {
        std::vector<double> s(n);
        for (std::size_t j = 0; j < n; ++j) {
            double closed = 0.0, size = 0.0;
            for (std::size_t c = 0; c < d_k; ++c) s[j] += Qr[m][c] * Kr[j][c];
            for (std::size_t p = 0; p + 1 < d_k; p += 2) {  // q · R(φ) k, φ = (j − m) θ: no offset in it
                size += std::hypot(double(Q(m, p)), double(Q(m, p + 1))) * std::hypot(double(K(j, p)), double(K(j, p + 1)));
                const double phi = (double(j) - double(m)) * std::pow(base, -double(p) / double(d_k));
                closed += (double(Q(m, p)) * K(j, p) + double(Q(m, p + 1)) * K(j, p + 1)) * std::cos(phi) +
                          (double(Q(m, p + 1)) * K(j, p) - double(Q(m, p)) * K(j, p + 1)) * std::sin(phi);
            }
            r.scores(m, j) = float(s[j]), r.closed_form(m, j) = float(closed);
            r.score_size = std::max(r.score_size, size);
        }
        const double top = *std::max_element(s.begin(), s.end());
        double z = 0.0;
        for (double& e : s) z += (e = std::exp((e - top) / std::sqrt(double(d_k))));
        for (std::size_t j = 0; j < n; ++j) r.weights(m, j) = float(s[j] / z);
    }
    return r;
}

// max |a − b| over the entries of two matrices of one shape.
static float largest_change(const Matrix& a, const Matrix& b) {
    float worst = 0.0f;
    for (std::size_t i = 0; i < rows(a); ++i)
        for (std::size_t j = 0; j < cols(a); ++j) worst = std::max(worst, std::abs(a(i, j) - b(i, j)));
    return worst;
}

// (X + PE at positions offset …) W_Q · ((X + PE) W_K)ᵀ: chapter 09's way. (n × n)
static Matrix added_scores(const Matrix& X, const Matrix& W_Q, const Matrix& W_K, std::size_t offset, double base) {
    const Matrix X_pe = X + sinusoids_at(rows(X), offset, cols(X), base);
    return matmul_transposed(matmul(X_pe, W_Q), matmul(X_pe, W_K));
}

RopeLesson rope_lesson(const Matrix& X, const Matrix& W_Q, const Matrix& W_K, std::size_t offset, double base,
                       std::size_t decay_d, std::size_t max_distance) {
    const std::size_t n = rows(X), d_k = cols(W_Q);
    if (d_k % 2 != 0 || d_k != cols(W_K))
        throw InputError(describe("W_Q and W_K of ", d_k, " and ", cols(W_K), " columns: RoPE needs one even d_k"));
    RopeLesson r;
    // pass 1: project, then turn each pair of each row by its position's angle
    r.theta = rope_frequencies(d_k, base);
    r.Q = matmul(X, W_Q);  // (n × d_model) · (d_model × d_k) → (n × d_k)
    r.K = matmul(X, W_K);
    r.angles = rope_angles(n, offset, r.theta);
    r.Q_rot = rotate_interleaved(r.Q, offset, r.theta);
    r.K_rot = rotate_interleaved(r.K, offset, r.theta);
    r.scores = matmul_transposed(r.Q_rot, r.K_rot);  // (n × d_k) · (d_k × n) → (n × n)
    const float scale = 1.0f / std::sqrt(float(d_k));  // softmax(scores / √d_k)
    r.weights = softmax_rows(Matrix(r.scores * scale));
    r.by_loops = rope_by_loops(r.Q, r.K, offset, base);
    // pass 2: every position shifted by P: RoPE's scores against X + PE's
    r.offsets = {1, 10, 1000, 100000, 1000000};
    if (offset != 0 && std::find(r.offsets.begin(), r.offsets.end(), offset) == r.offsets.end())
        r.offsets.insert(std::upper_bound(r.offsets.begin(), r.offsets.end(), offset), offset);
    const auto rope_scores = [&](std::size_t P) {
        return matmul_transposed(rotate_interleaved(r.Q, P, r.theta), rotate_interleaved(r.K, P, r.theta));
    };
    const Matrix at_0 = rope_scores(0);
    r.pe_scores_0 = added_scores(X, W_Q, W_K, 0, base);
    r.pe_scores = added_scores(X, W_Q, W_K, offset, base);
    r.offset_changes = Matrix::from_shape({r.offsets.size(), 2});
    for (std::size_t k = 0; k < r.offsets.size(); ++k) {
        r.offset_changes(k, 0) = largest_change(rope_scores(r.offsets[k]), at_0);
        r.offset_changes(k, 1) = largest_change(added_scores(X, W_Q, W_K, r.offsets[k], base), r.pe_scores_0);
    }
    // pass 3: the two layouts; permuted to match, and mixed up
    const Order order = halves_order(d_k);
    r.Q_halves = permute_columns(r.Q, order);
    r.K_halves = permute_columns(r.K, order);
    r.Q_rot_halves = rotate_split_halves(r.Q_halves, offset, r.theta);
    r.K_rot_halves = rotate_split_halves(r.K_halves, offset, r.theta);
    r.scores_halves = matmul_transposed(r.Q_rot_halves, r.K_rot_halves);
    r.Q_rot_mixed = rotate_split_halves(r.Q, offset, r.theta);
    r.K_rot_mixed = rotate_split_halves(r.K, offset, r.theta);
    r.scores_mixed = matmul_transposed(r.Q_rot_mixed, r.K_rot_mixed);
    r.weights_mixed = softmax_rows(Matrix(r.scores_mixed * scale));
    // pass 4: the long-range decay, q = k = (1, …, 1) of width decay_d at distance Δ
    const std::vector<double> theta_d = rope_frequencies(decay_d, base);
    const Matrix ones = xt::ones<float>({max_distance + 1, decay_d});  // (distances × decay_d)
    const Matrix ones_rot = rotate_interleaved(ones, 0, theta_d);
    r.decay = Matrix::from_shape({max_distance + 1, 2});
    r.decay_closed_form = Matrix::from_shape({max_distance + 1, 1});
    const double bound_at_0 = double(theta_d.size()) * double(theta_d.size() + 1) / 2.0;  // Σ_j j
    for (std::size_t delta = 0; delta <= max_distance; ++delta) {
        double dot = 0.0, bound = 0.0, closed = 0.0;
        std::complex<double> S = 0.0;  // S_j = Σ_{i<j} e^{iΔθ_i}; the bound is Σ_j |S_j|
        for (std::size_t c = 0; c < decay_d; ++c) dot += double(ones_rot(0, c)) * ones_rot(delta, c);
        for (const double th : theta_d) {
            S += std::polar(1.0, double(delta) * th);
            bound += std::abs(S);
            closed += 2.0 * std::cos(double(delta) * th) / double(decay_d);
        }
        r.decay(delta, 0) = float(dot / double(decay_d));
        r.decay(delta, 1) = float(bound / bound_at_0);
        r.decay_closed_form(delta, 0) = float(closed);
    }
    return r;
}
