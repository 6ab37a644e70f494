// Chapter 23 · the mathematics: inside the trained model — what each head does, and what breaks
// without it.
//
// The model is chapter 22's GPT (common/gpt/gpt_model.hpp): L blocks of H heads, and in block l
//   x += [z_0 … z_{H−1}] · attn.c_projᵀ + b,     z_h = A_h v_h,  A_h = softmax_causal(q_h k_hᵀ / √d_h)
// so a head reaches the rest of the model only through its output z_h (n × d_h). Every
// intervention here replaces z_h and runs the model again (gpt_forward's HeadReplacement):
//   removed:    z_h ← 0                         (zero ablation)
//   mean:       z_h ← z̄_h, its mean over every held-out token  (1 × d_h)  (mean ablation)
//   patched:    z_h ← z_h of another run, one row a token       (activation patching)
//
// 1. What each head attends to, on W held-out windows of T tokens (query i ≥ 2, where the
//    three keys below are three different tokens):
//      previous-token share = mean A_h[i, i−1],  self share = mean A_h[i, i],
//      first-token share    = mean A_h[i, 0]     (a "sink": weight parked on the first token)
//    and on R random sequences of s = T/2 tokens repeated twice (n = 2s), as in chapter 16:
//      induction score      = mean over i ≥ s of A_h[i, i − s + 1]  (the token after the earlier copy)
//    Uniform attention over i + 1 keys gives 1/(i + 1) to each, the level of chance:
//      uniform share = mean over i = 2 … T−1 of 1/(i + 1),  uniform induction = mean over i = s … 2s−1
//    (0.052 and 0.021 at T = 64). A head is named for a role only when its number reaches
//    role_share, several times those.
// 2. What breaks without it: the held-out loss (mean −log p(next token) over the W windows)
//    with z_h removed or replaced by its mean, minus the model's.
//    Olsson et al.'s test: P held-out passages of s tokens repeated twice; the loss on the
//    second copy (which a copying head can predict) against the first, for the model, without
//    the induction heads, and without as many other heads (of the same blocks first).
// 3. Which head carries a fact: two sentences of n tokens that differ in a word (clean, corrupt);
//    the expected token e = the clean run's most likely token after the last one. Patch z_h from
//    the clean run into the corrupt one and read the logit ℓ_e after the last token:
//      effect(l, h) = ℓ_e(patched) − ℓ_e(corrupt),  restored = effect / (ℓ_e(clean) − ℓ_e(corrupt))
//    per head at every position at once (L × H) and at one position at a time (L·H × n).
// 4. The logit lens: the output layer read after each block, LN(x_l; ln_f) · wteᵀ, for
//    x_0 (the embeddings) … x_L (the model's own logits): the most likely next token at each
//    depth, and the held-out loss at each depth.
// 5. In-context learning: the held-out loss at each position 0 … T−1 of the window; the
//    in-context learning score = mean loss over the last T/8 positions − mean loss over the
//    positions T/16 … T/8 − 1 (negative: later tokens are predicted better, from the context).
//
// 6. Composition (Elhage et al. 2021): how much a block-1 head reads what a block-0 head writes.
//    With LayerNorm's γ of each block folded into the matrices that read it (its centring and
//    scale left out), head h of block l reads and writes the residual stream through
//      W_Q = diag(γ) c_attn[q rows of h]ᵀ, W_K, W_V likewise   (d × d_h)
//      W_O = c_proj[:, columns of h]ᵀ                          (d_h × d)
//      W_QK = W_Q W_Kᵀ (d × d): score(x_i, x_j) = x_i W_QK x_jᵀ;  W_OV = W_V W_O (d × d): what it adds
//    and a block-0 head's output x W_OV⁰ reaches a block-1 head's queries, keys or values:
//      Q-composition = ‖W_OV⁰ W_QK¹‖_F / (‖W_OV⁰‖_F ‖W_QK¹‖_F)
//      K-composition = ‖W_OV⁰ W_QK¹ᵀ‖_F / (…)      V-composition = ‖W_OV⁰ W_OV¹‖_F / (…)
//    Each is a product X C Z through d_h × d_h (X = W_V⁰, C = W_O⁰ W_Q¹, Z = W_K¹ᵀ for Q), so
//      ‖X C Z‖_F² = trace(Cᵀ (XᵀX) C (Z Zᵀ))        (d_h × d_h matrices only)
//    The baseline: the mean score of Gaussian matrices of these shapes. An induction head's keys
//    read a previous-token head's output: its K-composition with that head should stand out.
//    And as an experiment: each block-1 head's induction score with each block-0 head removed.
//
// 7. The circuit patched: the sequences of part 1 and their shifted twins, each first copy moved
//    one position later (h_{s−1}, h_0 … h_{s−2}; the second copy as it was). At a query i of the
//    second copy an induction head reads the key whose previous token is the query's: i − s + 1
//    in a sequence, i − s + 2 in its twin. Patch one block-0 head's output at the first copy's
//    positions from the twin into the sequence: if the reader's keys learn "my previous token"
//    from that head, its weight moves from i − s + 1 to i − s + 2 (queries i = s … 2s − 3).
//
// Shapes: V vocabulary, T context, L blocks, H heads, d_h = d_model / H, W held-out windows,
// R random sequences, P repeated passages, n tokens of a sentence.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/gpt/gpt_model.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"

constexpr double role_share = 0.3;  // a head whose share or score is this high does that job

enum class HeadRole { previous_token, self, first_token, induction, spread };
std::string role_name(HeadRole role);

// What the measurements read: which held-out windows, how many random sequences.
struct Probe {
    std::size_t windows = 200;      // at most this many held-out windows, spread evenly
    std::size_t sequences = 40;     // R random repeated sequences (induction score)
    std::size_t passages = 40;      // P repeated held-out passages (the induction-removal test)
    std::uint64_t seed = 1;         // of the random sequences
};

// Part 1 and the baseline every other part compares with.
struct HeadScores {
    std::size_t layers = 0, heads = 0;
    Matrix held_out_windows;        // (W × T+1) the windows' token ids: input T, target shifted by 1
    double held_out_loss = 0.0;     // the model's mean loss over them
    Matrix previous_token, self, first_token, induction;  // (L × H) each
    Matrix roles;                   // (L × H) HeadRole as a number
    Matrix examples;                // (L·H × 3) window, query i, key j where the head's role weight is largest
    Matrix example_weights;         // (L·H × 1) that weight; −1 when none was found (an induction head
                                    // on windows where no token repeats)
    Matrix random_sequences;        // (R × 2s) the repeated random tokens
    Matrix mean_outputs;            // (L·H × d_h) z̄_h over every held-out token
    Matrix loss_by_position;        // (1 × T) the held-out loss at each position
    Matrix lens_loss;               // (1 × L+1) the held-out loss read after each block (0: embeddings)
    double uniform_share = 0.0;     // what uniform weights give each of the three shares
    double uniform_induction = 0.0; // and the induction score

    MatrixList matrices() const;
};
HeadScores score_heads(const Gpt<float>& model, const Tokens& held_out, const Probe& probe);

// Part 2 and 5.
struct Removals {
    Matrix increase_removed, increase_mean;  // (L × H) held-out loss without the head − the model's
    std::vector<std::size_t> induction_heads;  // l·H + h of the heads removed as "induction heads" (or, when
                                               // none reaches role_share, the one of the highest score)
    std::vector<std::size_t> other_heads;      // as many others: same blocks first, lowest scores first
    bool induction_found = false;              // whether any head reaches role_share (else the one removed is at chance)
    Matrix repeated_passages;                  // (P × 2s) held-out passages, each twice
    Matrix repeated_losses;                    // (3 × 2) first copy, second copy: model, −induction, −others
    Matrix loss_by_position_without;           // (1 × T) held-out loss by position, induction heads removed
    Matrix in_context_scores;                  // (1 × 2) model, induction heads removed

    MatrixList matrices() const;
};
Removals remove_heads(const Gpt<float>& model, const HeadScores& scores, const Probe& probe, const Tokens& held_out);

// Part 3.
struct Patching {
    Matrix clean_ids, corrupt_ids;  // (1 × n)
    std::size_t expected = 0;       // e: the clean run's most likely next token after the last
    double clean_logit = 0.0, corrupt_logit = 0.0;  // ℓ_e after the last token
    Matrix effect;                  // (L × H) ℓ_e(patched at every position) − ℓ_e(corrupt)
    Matrix restored;                // (L × H) effect / (ℓ_e(clean) − ℓ_e(corrupt))
    Matrix effect_by_position;      // (L·H × n) the same, patched at one position only
    Matrix all_patched_logits;      // (1 × V) after the last token, every head patched at once
    Matrix clean_logits;            // (1 × V) after the last token, the clean run

    MatrixList matrices() const;
};
Patching patch_heads(const Gpt<float>& model, const Tokens& clean, const Tokens& corrupt);

// The z_h of every head of a run, and one head patched from `from` at `position` (all: every one).
constexpr std::size_t every_position = std::size_t(-1);
HeadReplacement<float> patch_of(const GptForward<float>& from, const GptForward<float>& into, std::size_t layer,
                                std::size_t head, std::size_t position);

// Part 4 on one sentence, and every head's weights on it.
struct SentenceLens {
    Matrix token_ids;               // (1 × n)
    std::vector<Matrix> weights;    // [l·H + h] (n × n)
    Matrix top_ids;                 // (L+1 × n) the most likely next token read after block l
    Matrix top_probabilities;       // (L+1 × n) its probability
    std::vector<Matrix> lens_logits;  // [L+1] (n × V)
    Matrix logits;                  // (n × V) the model's own
    std::size_t layers = 0, heads = 0;

    MatrixList matrices() const;
};
SentenceLens read_with_lens(const Gpt<float>& model, const Tokens& ids);

// Part 6, from block `from` to block `from + 1`.
struct Composition {
    std::size_t from = 0;          // the writing block; its next block reads
    Matrix q, k, v;                // (H × H) row: the writing head, column: the reading head
    double baseline = 0.0;         // the mean score of random matrices of these shapes
    std::size_t baseline_samples = 0;
    Matrix induction_without;      // (H + 1 × H) the reading heads' induction scores with writing
                                   // head w removed (row w), and with none (the last row)

    MatrixList matrices() const;
};
constexpr std::size_t composition_samples = 100;  // random draws of the baseline

// The same question asked of the running model: the induction score (part 1's, on the repeated
// random sequences) of every head of block from + 1 with head w of block `from` removed
// (z_w ← 0), row w, and with none, the last row (H + 1 × H).
Matrix induction_without_writers(const Gpt<float>& model, std::size_t from, const Matrix& random_sequences);
Composition compose_heads(const Gpt<float>& model, std::size_t from, std::size_t samples, std::uint64_t seed);

// Part 7, from block 0 into the block-1 head `reader`.
struct ShiftPatching {
    std::size_t reader = 0;         // the block-1 head read (H: none, the model has one block)
    Matrix twin_sequences;          // (R × 2s) each sequence with its first copy one position later
    Matrix weights;                 // (H + 2 × 2) the reader's mean weight on keys i − s + 1 and i − s + 2:
                                    // on the sequences, on the twins, then on the sequences with block-0
                                    // head w patched from the twins (row 2 + w); zeros when s < 3
    MatrixList matrices() const;
};
ShiftPatching patch_shifted(const Gpt<float>& model, const Matrix& random_sequences, std::size_t reader);

// A small matrix of doubles, row by row: entry (r, c) at r·cols + c.
struct Dense {
    std::size_t rows = 0, cols = 0;
    std::vector<double> at;
    Dense() = default;
    Dense(std::size_t r, std::size_t c) : rows(r), cols(c), at(r * c, 0.0) {}
    double& operator()(std::size_t r, std::size_t c) { return at[r * cols + c]; }
    double operator()(std::size_t r, std::size_t c) const { return at[r * cols + c]; }
};

// One head's circuit matrices, γ folded in (d × d_h; W_O: d_h × d), in double.
struct HeadCircuit {
    Dense W_Q, W_K, W_V, W_O;
};
HeadCircuit head_circuit(const Gpt<float>& model, std::size_t layer, std::size_t head);

// The three scores of one (writer, reader) pair: {Q, K, V}.
std::array<double, 3> composition_of(const HeadCircuit& writer, const HeadCircuit& reader);

// The head of block `layer` with the largest entry of an (L × H) table (a tie: the first): block
// 1's highest induction score, block 0's highest previous-token share.
std::size_t highest_head(const Matrix& table, std::size_t layer);

// LN(x; ln_f) · wteᵀ: the output layer on a residual stream x (N × d).
Matrix lens_logits(const Gpt<float>& model, const Matrix& x);
// −log softmax(logits row r)[target r] for every row, in double.
std::vector<double> token_losses(const Matrix& logits, const std::vector<Tokens>& targets);
// Mean loss over the last T/8 positions − over positions T/16 … T/8 − 1 (at least one each).
double in_context_score(const Matrix& loss_by_position);
