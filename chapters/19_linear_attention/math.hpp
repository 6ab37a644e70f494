// Chapter 19 · the mathematics: attention as a recurrence.
//
// Linear attention (Katharopoulos et al. 2020) puts a feature map φ ≥ 0 where softmax was:
//   out_t = φ(q_t)ᵀ S_t / φ(q_t) · z_t,   S_t = Σ_{i≤t} φ(k_i) v_iᵀ  (d × d_v),   z_t = Σ_{i≤t} φ(k_i)  (d)
// The same numbers three ways:
//   parallel   A = (φQ · φKᵀ) ⊙ M (n × n, M causal),  out = A V / rowsum(A)
//   recurrent  S ← S + φk_t v_tᵀ,  z ← z + φk_t,  out_t = φq_tᵀ S / φq_t · z    (a state, not a cache)
//   chunked    chunks of C tokens: out = (φQ_c S + A_c V_c) / (φQ_c z + rowsum(A_c)),
//              A_c = (φQ_c φK_cᵀ) ⊙ M inside the chunk; then S += φK_cᵀ V_c, z += Σ_rows φK_c
// A query whose normaliser φ(q_t) · z_t is 0 (φ = relu can give it) sees no key: its output is 0.
//
// The delta rule (DeltaNet: Schlag et al. 2021; Yang et al. 2024), keys and queries of unit length:
//   S_t = S_{t−1} + β_t k_t (v_t − S_{t−1}ᵀ k_t)ᵀ,   o_t = S_tᵀ q_t    "write the error, not the value"
// and its gated form (Gated DeltaNet): S_t = α_t S_{t−1} + β_t k_t (v_t − α_t S_{t−1}ᵀ k_t)ᵀ.
//
// Trained (part 3): chapter 16's attention-only model on its copy task, its heads mixing
// tokens by softmax, linear attention, the delta rule or the gated delta rule
// (common/copy_model/attention_only_model.hpp, common/copy_model/copy_task.hpp).
//
// Shapes: n tokens, d_model the embedding width, d = d_k = d_v = d_model (one head), C the chunk.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/copy_model/attention_only_model.hpp"
#include "common/copy_model/copy_task.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"

// φ, elementwise: elu(x) + 1 (the paper's: x + 1 for x > 0, eˣ below), max(x, 0), or eˣ.
// eˣ is computed as exp(x − c), c the largest entry of X (keys: `whole`) or of each row
// (queries: `each_row`); the factor e⁻ᶜ cancels in linear attention's ratio.
enum class FeatureMap { elu1, relu, exp };
enum class Shift { whole, each_row };
FeatureMap feature_map_named(const std::string& name);  // "elu1", "relu" or "exp"
std::string feature_map_formula(FeatureMap phi);
Matrix feature_map(const Matrix& X, FeatureMap phi, Shift shift = Shift::whole);

// Causal linear attention of φQ (n × d), φK (n × d), V (n × d_v) → (n × d_v), three ways.
// The parallel form also gives its weights A / rowsum(A) (n × n) when `weights` is given.
Matrix linear_parallel(const Matrix& phi_Q, const Matrix& phi_K, const Matrix& V, Matrix* weights = nullptr);
Matrix linear_recurrent(const Matrix& phi_Q, const Matrix& phi_K, const Matrix& V);
Matrix linear_chunked(const Matrix& phi_Q, const Matrix& phi_K, const Matrix& V, std::size_t C);

// Every row scaled to length 1 (a row of zeros stays 0).
Matrix unit_rows(const Matrix& X);

// The gated delta rule over n tokens from S = `state` (d × d_v; updated in place):
// beta and alpha (n × 1). Returns o (n × d_v), o_t = S_tᵀ q_t.
Matrix delta_rule(const Matrix& Q, const Matrix& K, const Matrix& V, const Matrix& beta, const Matrix& alpha,
                  Matrix& state);

// What a state holds: m (key, value) pairs written into S, then read back with each key,
// r = Sᵀk_i against v_i. Orthogonal keys: the first m unit vectors e_i. Correlated keys:
// e_i + γ·(1, …, 1)/√d scaled to length 1 (each pair's cosine γ² + 2γ/√d over 1 + γ² + 2γ/√d).
// Linear attention writes S += k vᵀ; the delta rule (β = 1) S += k (v − Sᵀk)ᵀ. A sweep writes
// every pair once, in order.
constexpr std::size_t memory_pairs = 6, memory_width = 8, memory_value_width = 4, memory_sweeps = 12;
constexpr float memory_overlap = 0.5f;  // γ
struct Memory {
    Matrix keys_orthogonal, keys_correlated;  // (m × d) unit rows
    Matrix values;                            // (m × d_v)
    float key_cosine = 0;                     // k_0 · k_1 of the correlated keys (every pair's)
    Matrix state_linear, state_delta;         // (d × d_v) correlated keys, after one sweep
    Matrix state_delta_swept;                 // (d × d_v) correlated keys, delta rule after every sweep
    Matrix pair_errors;   // (m × 4) |Sᵀk_i − v_i| after one sweep: linear, delta (orthogonal); linear, delta (correlated)
    Matrix sweep_errors;  // (sweeps × 4) the largest over the pairs after each sweep, same columns
};
Memory state_memory(std::uint64_t seed);

struct Settings {
    FeatureMap phi = FeatureMap::elu1;
    std::size_t chunk = 4;  // C
    float beta = 0.0f;      // in (0, 1]; 0: β_t = σ(x_t · w_β), from the projection
    float alpha = 0.9f;     // α_t of the gated form, in (0, 1]
};

// The projections of one head: W_Q, W_K, W_V (d_model × d), w_β (d_model × 1).
struct Projections {
    Matrix W_Q, W_K, W_V, w_beta;

    MatrixList matrices() const {
        return {{"W_Q", W_Q, "", "dimensions", ""}, {"W_K", W_K, "", "dimensions", ""},
                {"W_V", W_V, "", "dimensions", ""}, {"w_beta", w_beta, "", "dimensions", ""}};
    }
};

// Everything the lesson shows of parts 1 and 2, computed once.
struct Recurrences {
    Matrix Q, K, V;                                            // (n × d) X · W
    Matrix phi_Q, phi_K;                                       // (n × d) φ(Q), φ(K)
    Matrix linear_weights;                                     // (n × n) A / rowsum(A)
    Matrix output_parallel, output_recurrent, output_chunked;  // (n × d_v)
    Matrix delta_Q, delta_K, delta_V;                          // (n × d) unit rows of Q and K; V
    Matrix beta, alpha;                                        // (n × 1)
    Matrix output_delta, output_gated;                         // (n × d_v)
    Matrix state_final, state_gated;                           // (d × d_v) S_n
    Memory memory;

    MatrixList matrices() const;
};

Recurrences recurrences(const Matrix& X, const Projections& W, const Settings& s, std::uint64_t seed);

// Part 3: the four mixers trained side by side on the copy task: the same data, size, steps
// and seed for each; only how a head mixes its tokens differs.
//
// Numbers a decoder keeps per token at length n, over all layers and heads (d_h the head width):
//   softmax       2·d_h per head: every token's key and value (the KV cache grows with n)
//   linear        d_h·d_h + d_h per head in all (S and z), whatever n: per token ÷ n
//   delta, gated  d_h·d_h per head in all (S): per token ÷ n
constexpr std::array<Mixer, 4> trained_mixers = {Mixer::softmax, Mixer::linear, Mixer::delta, Mixer::gated_delta};
std::string mixer_name(Mixer m);
double numbers_per_token(Mixer m, std::size_t layers, std::size_t heads, std::size_t d_h, std::uint64_t n);
constexpr double bytes_per_number = 4;  // float32
constexpr std::uint64_t short_n = 32, long_n = 131072;  // the lengths of the memory table
constexpr int default_steps = 1000;                      // --steps: the same for every mixer

struct SideBySide {
    CopyTaskSettings settings;                   // the mixer is set per model
    std::vector<TrainedModel> models;            // [m] in the order of trained_mixers
    std::vector<GradientCheck> gradient_checks;  // [m] on a small random model in double
    Tokens shown;                                // the first held-out sequence
    std::vector<ModelForward<float>> shown_forward;  // [m] each trained model on it
    std::vector<double> curve_steps;             // (logged steps)
    Matrix loss_curves;     // (logged steps × 4) the second half's loss on the probe sequences
    Matrix accuracy;        // (4 × 2) held out, trained: first half, second half
    Matrix memory_bytes;    // (4 × 2) bytes kept per token at n = 32 and n = 131072, float32 numbers

    MatrixList matrices() const;
};
// `progress(m)` (when set) is told model m's logged steps.
SideBySide train_side_by_side(const CopyTaskSettings& s, const std::function<Progress(std::size_t)>& progress);
