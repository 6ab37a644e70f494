#include "chapters/14_rotary_positions/math.hpp"

#include <algorithm>
#include <cmath>
#include <complex>

#include "common/attention/softmax.hpp"
#include "common/numbers/input_error.hpp"
#include "common/numbers/matmul.hpp"

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

RotatedScores rotated_scores(const Matrix& X, const Matrix& W_Q, const Matrix& W_K, std::size_t offset, double base,
                       std::size_t decay_d, std::size_t max_distance) {
    const std::size_t n = rows(X), d_k = cols(W_Q);
    if (d_k % 2 != 0 || d_k != cols(W_K))
        throw InputError(describe("W_Q and W_K of ", d_k, " and ", cols(W_K), " columns: RoPE needs one even d_k"));
    RotatedScores r;
    // pass 1: project, then turn each pair of each row by its position's angle
    r.theta = rope_frequencies(d_k, base);
    for (const double th : r.theta) r.periods.push_back(2.0 * M_PI / th);
    r.Q = matmul(X, W_Q);  // (n × d_model) · (d_model × d_k) → (n × d_k)
    r.K = matmul(X, W_K);
    r.angles = rope_angles(n, offset, r.theta);
    r.Q_rot = rotate_interleaved(r.Q, offset, r.theta);
    r.K_rot = rotate_interleaved(r.K, offset, r.theta);
    r.scores = matmul_transposed(r.Q_rot, r.K_rot);  // (n × d_k) · (d_k × n) → (n × n)
    const float scale = 1.0f / std::sqrt(float(d_k));  // softmax(scores / √d_k)
    r.weights = softmax_rows(Matrix(r.scores * scale));
    r.offset = offset, r.base = base;
    r.W_Q = W_Q, r.W_K = W_K;
    // the query whose shortest pair is longest: every pair has something to turn
    double best = -1.0;
    for (std::size_t t = 0; t < n; ++t) {
        double shortest = HUGE_VAL;
        for (std::size_t i = 0; i < r.theta.size(); ++i)
            shortest = std::min(shortest, std::hypot(double(r.Q(t, 2 * i)), double(r.Q(t, 2 * i + 1))));
        if (shortest > best) best = shortest, r.example = t;
    }
    for (std::size_t i = 0; i < r.theta.size(); ++i) {
        const std::size_t t = r.example;
        const float a = r.Q(t, 2 * i), b = r.Q(t, 2 * i + 1), alpha = r.angles(t, i);
        const float a_rot = r.Q_rot(t, 2 * i), b_rot = r.Q_rot(t, 2 * i + 1);
        r.example_pairs.push_back(
            {a, b, alpha, std::cos(alpha), std::sin(alpha), a_rot, b_rot, std::hypot(a, b), std::hypot(a_rot, b_rot)});
    }
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
    r.halves_change = largest_change(r.scores_halves, r.scores);
    r.mixed_change = largest_change(r.scores_mixed, r.scores);
    r.mixed_weight_change = largest_change(r.weights_mixed, r.weights);
    // pass 4: the long-range decay, q = k = (1, …, 1) of width decay_d at distance Δ
    const std::vector<double> theta_d = rope_frequencies(decay_d, base);
    const Matrix ones = xt::ones<float>({max_distance + 1, decay_d});  // (distances × decay_d)
    const Matrix ones_rot = rotate_interleaved(ones, 0, theta_d);
    r.decay = Matrix::from_shape({max_distance + 1, 2});
    r.decay_d = decay_d;
    const double bound_at_0 = double(theta_d.size()) * double(theta_d.size() + 1) / 2.0;  // Σ_j j
    for (std::size_t delta = 0; delta <= max_distance; ++delta) {
        double dot = 0.0, bound = 0.0;
        std::complex<double> S = 0.0;  // S_j = Σ_{i<j} e^{iΔθ_i}; the bound is Σ_j |S_j|
        for (std::size_t c = 0; c < decay_d; ++c) dot += double(ones_rot(0, c)) * ones_rot(delta, c);
        for (const double th : theta_d) {
            S += std::polar(1.0, double(delta) * th);
            bound += std::abs(S);
        }
        r.decay(delta, 0) = float(dot / double(decay_d));
        r.decay(delta, 1) = float(bound / bound_at_0);
        r.distances.push_back(double(delta)), r.decay_ones.push_back(r.decay(delta, 0));
        r.decay_bound.push_back(r.decay(delta, 1));
    }
    // the table's distances: those up to max_distance, a repeat of the one before dropped
    for (const std::size_t d : {std::size_t{0}, std::size_t{1}, std::size_t{10}, std::size_t{50}, max_distance / 2,
                                max_distance})
        if (d <= max_distance && (r.decay_rows.empty() || r.decay_rows.back() != d)) r.decay_rows.push_back(d);
    return r;
}

MatrixList RotatedScores::matrices() const {
    const std::string at_offset = "(X + PE) W_Q · ((X + PE) W_K)ᵀ, offset " + std::to_string(offset);
    return {{"W_Q", W_Q, "", "dimensions", "query dims"},
            {"W_K", W_K, "", "dimensions", "key dims"},
            {"Q", Q, "X · W_Q", "positions", "query dims"},
            {"K", K, "X · W_K", "positions", "key dims"},
            {"angles", angles, "position · θ_i (radians)", "positions", "angles"},
            {"Q_rot", Q_rot, "Q, each pair turned by position · θ_i", "positions", "query dims"},
            {"K_rot", K_rot, "K, each pair turned by position · θ_i", "positions", "key dims"},
            {"scores", scores, "Q_rot · K_rotᵀ", "positions", "positions"},
            {"weights", weights, "softmax(scores / √d_k)", "positions", "positions", MatrixKind::attention_weights},
            {"scores_pe", pe_scores, at_offset, "positions", "positions"},
            {"scores_pe_0", pe_scores_0, "(X + PE) W_Q · ((X + PE) W_K)ᵀ, offset 0", "positions", "positions"},
            {"offset_changes", offset_changes, "max |scores(offset P) − scores(offset 0)|: RoPE, X + PE"},
            {"Q_halves", Q_halves, "Q, columns in halves order"},
            {"K_halves", K_halves, "K, columns in halves order"},
            {"Q_rot_halves", Q_rot_halves, "split halves of Q_halves", "positions", "halves"},
            {"K_rot_halves", K_rot_halves, "split halves of K_halves"},
            {"scores_halves", scores_halves, "Q_rot_halves · K_rot_halvesᵀ", "positions", "positions"},
            {"Q_rot_mixed", Q_rot_mixed, "split halves of Q"},
            {"K_rot_mixed", K_rot_mixed, "split halves of K"},
            {"scores_mixed", scores_mixed, "split halves on the interleaved layout", "positions", "positions"},
            {"weights_mixed", weights_mixed, "softmax(scores_mixed / √d_k)", "positions", "positions",
             MatrixKind::attention_weights},
            {"decay", decay, "q = k = ones: score / d, RoFormer's bound / its value at 0"}};
}
