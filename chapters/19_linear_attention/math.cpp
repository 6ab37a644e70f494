#include "chapters/19_linear_attention/math.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include <xtensor/xview.hpp>

#include "common/numbers/input_error.hpp"
#include "common/numbers/matmul.hpp"
#include "common/numbers/matrix_rows.hpp"
#include "common/numbers/random.hpp"
#include "common/numbers/threads.hpp"

FeatureMap feature_map_named(const std::string& name) {
    if (name == "relu") return FeatureMap::relu;
    if (name == "exp") return FeatureMap::exp;
    return FeatureMap::elu1;
}

std::string feature_map_formula(FeatureMap phi) {
    return phi == FeatureMap::relu ? "max(x, 0)" : phi == FeatureMap::exp ? "exp(x − c)" : "elu(x) + 1";
}

Matrix feature_map(const Matrix& X, FeatureMap phi, Shift shift) {
    // exp: exp(x − c), c the largest entry (of the row, or of all of X), as softmax subtracts its
    // maximum: no entry is above 1, where exp(q)·exp(k) would overflow float32 once q + k > 88,
    // each of them below. A factor e⁻ᶜ on all of φK cancels in φq·S / φq·z, and one on a row
    // of φQ in that query's own ratio.
    const float largest = phi == FeatureMap::exp && X.size() > 0 ? xt::amax(X)() : 0.0f;
    Matrix out = X;
    for (std::size_t i = 0; i < rows(X); ++i) {
        const float c = phi != FeatureMap::exp        ? 0.0f
                        : shift == Shift::each_row ? xt::amax(xt::view(X, i, xt::all()))()
                                                   : largest;
        for (std::size_t e = 0; e < cols(X); ++e) {
            float& x = out(i, e);
            x = phi == FeatureMap::relu  ? std::max(x, 0.0f)
                : phi == FeatureMap::exp ? std::exp(x - c)
                : x > 0.0f               ? x + 1.0f
                                         : std::exp(x);  // elu(x) + 1: eˣ − 1 + 1 below 0
        }
    }
    if (!all_finite(out)) throw InputError(describe("the feature map ", feature_map_formula(phi),
                                                    " (--feature-map) on this input: a number that is not finite"));
    return out;
}

namespace {
// Σ_i of M's rows, as a column: (r × c) → (c × 1)
Matrix column_sums(const Matrix& M) {
    Matrix sums = xt::zeros<float>({cols(M), std::size_t{1}});
    for (std::size_t i = 0; i < rows(M); ++i)
        for (std::size_t c = 0; c < cols(M); ++c) sums(c, 0) += M(i, c);
    return sums;
}
// out_i = numerator_i / normaliser_i, 0 where the normaliser is 0 (the query sees no key)
void divide_rows(Matrix& numerator, const Matrix& normaliser) {
    for (std::size_t i = 0; i < rows(numerator); ++i)
        for (std::size_t e = 0; e < cols(numerator); ++e)
            numerator(i, e) = normaliser(i, 0) > 0.0f ? numerator(i, e) / normaliser(i, 0) : 0.0f;
}
// (A ⊙ M) with M causal: the entries above the diagonal set to 0; their row sums (n × 1).
Matrix causal_row_sums(Matrix& A) {
    Matrix sums = xt::zeros<float>({rows(A), std::size_t{1}});
    for (std::size_t i = 0; i < rows(A); ++i)
        for (std::size_t j = 0; j < cols(A); ++j) (j > i ? A(i, j) = 0.0f : sums(i, 0) += A(i, j));
    return sums;
}

CopyTaskSettings with_mixer(CopyTaskSettings s, Mixer mixer) {
    s.mixer = mixer;
    return s;
}
}  // namespace

Matrix linear_parallel(const Matrix& phi_Q, const Matrix& phi_K, const Matrix& V, Matrix* weights) {
    Matrix A = matmul_transposed(phi_Q, phi_K);   // 1. φQ φKᵀ                       (n × n)
    const Matrix sums = causal_row_sums(A);        // 2. ⊙ M, and each row's sum      (n × 1)
    Matrix out = matmul(A, V);                     // 3. A V                          (n × d_v)
    divide_rows(out, sums);                        // 4. each row / its sum
    if (weights) divide_rows(*weights = A, sums);  // the weights A / rowsum(A)      (n × n)
    return out;
}

Matrix linear_recurrent(const Matrix& phi_Q, const Matrix& phi_K, const Matrix& V) {
    const std::size_t n = rows(V), d = cols(phi_K), dv = cols(V);
    Matrix S = xt::zeros<float>({d, dv}), z = xt::zeros<float>({d, std::size_t{1}}), out({n, dv});
    // ┌ exercise recurrent
    for (std::size_t t = 0; t < n; ++t) {
        const Matrix k = take_rows(phi_K, {t}), q = take_rows(phi_Q, {t});  // (1 × d)
        const Matrix kT = transposed(k);                                    // (d × 1)
        S += matmul(kT, take_rows(V, {t}));  // 1. S ← S + φk_t v_tᵀ              (d × d_v)
        z += kT;                             // 2. z ← z + φk_t                   (d × 1)
        Matrix o = matmul(q, S);             // 3. φq_tᵀ S                        (1 × d_v)
        divide_rows(o, matmul(q, z));        // 4. / φq_t · z
        put_rows(out, {t}, o);               //    row t of the output
    }
    // └ stub: (void)phi_Q; (void)phi_K; out.fill(0.0f); (void)S; (void)z;
    return out;
}

Matrix linear_chunked(const Matrix& phi_Q, const Matrix& phi_K, const Matrix& V, std::size_t C) {
    const std::size_t n = rows(V), d = cols(phi_K), dv = cols(V);
    Matrix S = xt::zeros<float>({d, dv}), z = xt::zeros<float>({d, std::size_t{1}}), out({n, dv});
    for (std::size_t begin = 0; begin < n; begin += C) {
        const std::size_t end = std::min(n, begin + C);
        const std::vector<std::size_t> chunk = row_range(begin, end);
        const Matrix q = take_rows(phi_Q, chunk), k = take_rows(phi_K, chunk), v = take_rows(V, chunk);
        Matrix A = matmul_transposed(q, k);                    // 1. inside the chunk   (c × c)
        const Matrix inside = causal_row_sums(A);              //    ⊙ M, row sums      (c × 1)
        Matrix o = matmul(q, S) + matmul(A, v);                // 2. earlier chunks + this one (c × d_v)
        divide_rows(o, matmul(q, z) + inside);                 // 3. / (φq · z + rowsum(A))
        put_rows(out, chunk, o);                               //    rows begin … end − 1
        const Matrix kT = transposed(k);                       // (d × c)
        S += matmul(kT, v);                                    // 4. carry the state: S += φK_cᵀ V_c
        z += column_sums(k);                                   // z += Σ_rows φK_c
    }
    return out;
}

Matrix unit_rows(const Matrix& X) {
    Matrix out = X;
    for (std::size_t i = 0; i < rows(X); ++i) {
        double length = 0;
        for (std::size_t c = 0; c < cols(X); ++c) length += double(X(i, c)) * X(i, c);
        for (std::size_t c = 0; c < cols(X); ++c) out(i, c) = length > 0 ? float(X(i, c) / std::sqrt(length)) : 0.0f;
    }
    return out;
}

Matrix delta_rule(const Matrix& Q, const Matrix& K, const Matrix& V, const Matrix& beta, const Matrix& alpha,
                  Matrix& state) {
    Matrix out({rows(V), cols(V)});
    for (std::size_t t = 0; t < rows(V); ++t) {
        const Matrix k = take_rows(K, {t}), kT = transposed(k);         // (1 × d), (d × 1)
        const float a = alpha(t, 0), b = beta(t, 0);
        // ┌ exercise delta-error
        const Matrix read = a * matmul(k, state);       // 1. what the state holds for k: α Sᵀk   (1 × d_v)
        const Matrix error = take_rows(V, {t}) - read;  // 2. the error: v − α Sᵀk
        // └ stub: const Matrix error = xt::zeros<float>({std::size_t{1}, cols(V)}); (void)a;
        state = a * state + b * matmul(kT, error);      // 3. S ← α S + β k (error)ᵀ             (d × d_v)
        put_rows(out, {t}, matmul(take_rows(Q, {t}), state));  // 4. o = Sᵀq
    }
    return out;
}

Memory state_memory(std::uint64_t seed) {
    const std::size_t m = memory_pairs, d = memory_width, dv = memory_value_width;
    Random random(seed + 1000);  // not the embeddings' numbers
    Memory r;
    r.values = random.normal_matrix(m, dv);
    r.keys_orthogonal = xt::zeros<float>({m, d});
    for (std::size_t i = 0; i < m; ++i) r.keys_orthogonal(i, i) = 1.0f;
    r.keys_correlated = unit_rows(r.keys_orthogonal + memory_overlap / std::sqrt(float(d)));
    r.key_cosine = 0.0f;
    for (std::size_t c = 0; c < d; ++c) r.key_cosine += r.keys_correlated(0, c) * r.keys_correlated(1, c);
    const Matrix ones = xt::ones<float>({m, std::size_t{1}});
    r.pair_errors = Matrix({m, 4}), r.sweep_errors = Matrix({memory_sweeps, 4});
    for (std::size_t column = 0; column < 4; ++column) {
        const bool delta = column % 2 == 1;
        const Matrix& keys = column < 2 ? r.keys_orthogonal : r.keys_correlated;
        Matrix S = xt::zeros<float>({d, dv});
        for (std::size_t sweep = 0; sweep < memory_sweeps; ++sweep) {
            if (delta) delta_rule(keys, keys, r.values, ones, ones, S);  // S += k (v − Sᵀk)ᵀ, β = α = 1
            else S += matmul(transposed(keys), r.values);                // S += Σ_i k_i v_iᵀ
            const Matrix read = matmul(keys, S);                         // row i: (Sᵀk_i)ᵀ   (m × d_v)
            float largest = 0.0f;
            for (std::size_t i = 0; i < m; ++i) {
                float e = 0.0f;
                for (std::size_t c = 0; c < dv; ++c) e += (read(i, c) - r.values(i, c)) * (read(i, c) - r.values(i, c));
                largest = std::max(largest, std::sqrt(e));
                if (sweep == 0) r.pair_errors(i, column) = std::sqrt(e);
            }
            r.sweep_errors(sweep, column) = largest;
            if (sweep == 0 && column == 2) r.state_linear = S;
            if (sweep == 0 && column == 3) r.state_delta = S;
        }
        if (column == 3) r.state_delta_swept = S;
    }
    return r;
}

Recurrences recurrences(const Matrix& X, const Projections& W, const Settings& s, std::uint64_t seed) {
    Recurrences r;
    const std::size_t n = rows(X);
    r.Q = matmul(X, W.W_Q), r.K = matmul(X, W.W_K), r.V = matmul(X, W.W_V);  // (n × d)
    r.phi_Q = feature_map(r.Q, s.phi, Shift::each_row), r.phi_K = feature_map(r.K, s.phi, Shift::whole);
    r.output_parallel = linear_parallel(r.phi_Q, r.phi_K, r.V, &r.linear_weights);
    // exp's scores are > 0; all of a query's rounding to 0 (its keys' entries far below the
    // largest key's) would leave it reading nothing: refused, not printed as 0.
    if (s.phi == FeatureMap::exp)
        for (std::size_t t = 0; t < n; ++t)
            if (!(xt::sum(xt::view(r.linear_weights, t, xt::all()))() > 0.0f))
                throw InputError(describe("--feature-map exp: every score of token ", t,
                                          " rounds to 0 in float32 (use elu1)"));
    r.output_recurrent = linear_recurrent(r.phi_Q, r.phi_K, r.V);
    r.output_chunked = linear_chunked(r.phi_Q, r.phi_K, r.V, s.chunk);
    r.delta_Q = unit_rows(r.Q), r.delta_K = unit_rows(r.K), r.delta_V = r.V;
    const Matrix logits = matmul(X, W.w_beta);  // (n × 1) x_t · w_β
    r.beta = Matrix({n, 1}), r.alpha = Matrix({n, 1});
    for (std::size_t t = 0; t < n; ++t) {
        r.beta(t, 0) = s.beta > 0.0f ? s.beta : 1.0f / (1.0f + std::exp(-logits(t, 0)));  // σ(x_t · w_β)
        r.alpha(t, 0) = s.alpha;
    }
    r.state_final = xt::zeros<float>({cols(r.K), cols(r.V)}), r.state_gated = r.state_final;
    const Matrix ones = xt::ones<float>({n, std::size_t{1}});
    r.output_delta = delta_rule(r.delta_Q, r.delta_K, r.delta_V, r.beta, ones, r.state_final);
    r.output_gated = delta_rule(r.delta_Q, r.delta_K, r.delta_V, r.beta, r.alpha, r.state_gated);
    r.memory = state_memory(seed);
    return r;
}

MatrixList Recurrences::matrices() const {
    return {{"Q", Q, "X · W_Q", "tokens", ""},
            {"K", K, "X · W_K", "tokens", ""},
            {"V", V, "X · W_V", "tokens", ""},
            {"phi_Q", phi_Q, "φ(Q)", "tokens", ""},
            {"phi_K", phi_K, "φ(K)", "tokens", ""},
            {"linear_weights", linear_weights, "(φQ φKᵀ ⊙ M) / rowsum", "tokens", "tokens",
             MatrixKind::attention_weights},
            {"output_parallel", output_parallel, "(φQ φKᵀ ⊙ M) V / rowsum", "tokens", ""},
            {"output_recurrent", output_recurrent, "φq_tᵀ S_t / φq_t · z_t", "tokens", ""},
            {"output_chunked", output_chunked, "chunk by chunk, S carried", "tokens", ""},
            {"delta_Q", delta_Q, "Q, rows of length 1", "tokens", ""},
            {"delta_K", delta_K, "K, rows of length 1", "tokens", ""},
            {"delta_V", delta_V, "V", "tokens", ""},
            {"beta", beta, "β_t", "tokens", ""},
            {"alpha", alpha, "α_t", "tokens", ""},
            {"output_delta", output_delta, "S_tᵀ q_t", "tokens", ""},
            {"output_gated", output_gated, "S_tᵀ q_t, gated", "tokens", ""},
            {"state_final", state_final, "S_n, delta rule", "", ""},
            {"state_gated", state_gated, "S_n, gated", "", ""},
            {"memory_keys_orthogonal", memory.keys_orthogonal, "e_i", "pairs", ""},
            {"memory_keys_correlated", memory.keys_correlated, "e_i + γ·1/√d, length 1", "pairs", ""},
            {"memory_values", memory.values, "v_i", "pairs", ""},
            {"memory_state_linear", memory.state_linear, "Σ k vᵀ", "", ""},
            {"memory_state_delta", memory.state_delta, "one sweep of the delta rule", "", ""},
            {"memory_state_delta_swept", memory.state_delta_swept, "after every sweep", "", ""},
            {"memory_pair_errors", memory.pair_errors, "|Sᵀk_i − v_i|, one sweep", "pairs", "memories"},
            {"memory_sweep_errors", memory.sweep_errors, "max_i |Sᵀk_i − v_i|", "sweeps", "memories"}};
}

std::string mixer_name(Mixer m) {
    return m == Mixer::softmax ? "softmax" : m == Mixer::linear ? "linear" : m == Mixer::delta ? "delta" : "gated";
}

double numbers_per_token(Mixer m, std::size_t layers, std::size_t heads, std::size_t d_h, std::uint64_t n) {
    const double per_head = m == Mixer::softmax  ? 2.0 * double(d_h)                                  // k_t and v_t
                            : m == Mixer::linear ? double(d_h * d_h + d_h) / double(n)             // (S, z) ÷ n
                                                 : double(d_h * d_h) / double(n);                  // S ÷ n
    return double(layers * heads) * per_head;
}

SideBySide train_side_by_side(const CopyTaskSettings& s, const std::function<Progress(std::size_t)>& progress) {
    SideBySide r;
    r.settings = s;
    r.shown = held_out_sequences(s)[0];
    const std::size_t M = trained_mixers.size(), d_h = s.d_model / s.heads;
    r.accuracy = Matrix({M, 2}), r.memory_bytes = Matrix({M, 2});
    Random small(s.seed + 101);  // the gradient check: 2 sequences of 6 tokens, V = 5, d_model 4, 2 × 2 heads
    const std::vector<Tokens> tiny = repeated_sequences(small, 2, 5, 3, 2);
    // the four trainings side by side, one model a thread (threads.hpp): a model's numbers are
    // its own thread's alone, the same bits at any count
    std::vector<Progress> said;
    for (std::size_t m = 0; m < M; ++m) said.push_back(progress ? progress(m) : Progress());
    r.models.resize(M);
    threads::split(M, [&](std::size_t begin, std::size_t end) {
        for (std::size_t m = begin; m < end; ++m) r.models[m] = train_copy_task(with_mixer(s, trained_mixers[m]), said[m]);
    });
    for (std::size_t m = 0; m < M; ++m) {
        r.shown_forward.push_back(model_forward(r.models[m].trained, {r.shown}));
        r.gradient_checks.push_back(
            gradient_check(in_double(random_model(5, 6, 4, 2, 2, true, s.seed + 7, trained_mixers[m])), tiny, 1e-5));
        r.accuracy(m, 0) = float(r.models[m].after.accuracy_first);
        r.accuracy(m, 1) = float(r.models[m].after.accuracy_second);
        for (const auto& [column, n] : {std::pair{0, short_n}, std::pair{1, long_n}})
            r.memory_bytes(m, column) = float(bytes_per_number * numbers_per_token(trained_mixers[m], s.layers, s.heads, d_h, n));
    }
    const std::vector<LoggedStep>& first = r.models[0].curve;  // every model logs the same steps
    r.loss_curves = Matrix({first.size(), M});
    for (std::size_t i = 0; i < first.size(); ++i) {
        r.curve_steps.push_back(first[i].step);
        for (std::size_t m = 0; m < M; ++m) r.loss_curves(i, m) = float(r.models[m].curve[i].loss_second);
    }
    return r;
}

MatrixList SideBySide::matrices() const {
    return {{"accuracy", accuracy, "held out, trained", "mixers", "halves"},
            {"loss_curves", loss_curves, "second half's loss", "", "mixers"},
            {"memory_bytes", memory_bytes, "bytes kept per token", "mixers", "lengths"}};
}
