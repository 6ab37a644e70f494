// Chapter 16 · the mathematics: an induction head forms in a model trained here.
//
// The task: a sequence of n = 2L tokens whose second half repeats the first,
//   tokens[i] uniform in [0, V) for i < L,   tokens[i] = tokens[i − L] for i ≥ L.
// The next token of the first half cannot be predicted: the best loss there is ln V.
// In the second half it can be copied: find where the current token occurred before
// (position i − L), look one step past it (i − L + 1), and copy that token.
//
// The model (common/copy_model/attention_only_model.hpp holds its forward and backward passes,
// common/copy_model/copy_task.hpp the task and the training loop):
//   X₀ = E[tokens] + P,   X_{l+1} = X_l + Σ_h softmax_causal(Q_h K_hᵀ / √d_h) V_h W_O^h,
//   p = softmax_rows(X_L · U),   loss = −mean_i log p_i[token_{i+1}]
// trained by Adam on fresh random sequences each step, its learning rate constant, then
// falling linearly to 0 over the last 40% of the steps. Two layers can copy: a head of
// layer 1 writes "my previous token was a" into position j (previous-token head);
// a head of layer 2 at position i, holding token a, then finds the j whose previous
// token was a, which is the position just past a's earlier occurrence, and copies it
// (induction head). One layer has no earlier head to write "previous token" for it.
//
// Scores of a head, from its weights A (n × n) averaged over held-out sequences:
//   previous-token score = mean_{i ≥ 1} A[i, i − 1]
//   induction score      = mean_{L ≤ i < n} A[i, i − L + 1]
//
// Shapes: V vocabulary, L half length, n = 2L, d = d_model, h heads, d_h = d / h;
// a batch of B sequences is stacked as (B·n × d); weights per head (n × n).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/copy_model/attention_only_model.hpp"
#include "common/copy_model/copy_task.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"
#include "common/numbers/random.hpp"

// The task, its settings and its training loop are common/copy_model/copy_task.hpp's.
using Settings = CopyTaskSettings;
constexpr std::size_t prompt_repeat = 3;    // generation: the segment, then its first 3 tokens again
constexpr double role_score = 0.3;          // a head with a score this high does that job

// Previous-token and induction score of every head (layer-major), over a batch.
struct HeadScores {
    std::vector<double> previous_token, induction;  // [l·heads + h]
};
HeadScores head_scores(const ModelForward<float>& f, std::size_t half);

// Greedy decoding with a KV cache: per layer and head, the keys and values of every
// token so far; each new token adds one row and asks one query.
struct Generation {
    Tokens prompt, generated, expected;  // generated continues the prompt; expected = the copy
    Mat<float> cached_logits;            // (n × V) the logits of every position, one at a time
    Mat<float> full_logits;              // (n × V) the full forward pass on the same tokens
    std::size_t right = 0;               // generated tokens equal to the copy
};
Generation generate(const AttentionOnlyModel<float>& m, const Tokens& sequence, std::size_t half);

// Everything the lesson shows, computed once.
struct Induction {
    Settings settings;
    Tokens shown;                              // (n) the held-out sequence whose weights are shown
    AttentionOnlyModel<float> start, trained;
    ModelForward<float> shown_before, shown_after;  // one sequence, before and after training
    std::vector<LoggedStep> curve;
    std::vector<double> curve_steps, curve_first, curve_second;  // (logged steps) the curve as the chart's series
    std::size_t table_stride = 1;              // the curve's table shows every table_stride-th log and the last:
    std::vector<std::size_t> table_rows;       // their indices in curve
    Halves before, after;                      // on the held-out sequences
    HeadScores scores_before, scores_after;
    std::size_t previous_head = 0, induction_head = 0;  // the heads with the largest score
    std::vector<std::size_t> previous_heads, induction_heads;  // every head whose score ≥ role_score
    std::vector<std::size_t> other_heads;      // the heads in neither list
    std::vector<Halves> ablated;               // [l·heads + h]: that head's output set to 0
    Halves without_previous, without_induction;  // every head of that role set to 0 at once
    std::size_t drop_step = 0;                 // first logged step with second-half loss < half of ln V
    Generation generation;
    GradientCheck check_small;                 // on a small random model in double
    std::size_t parameter_count = 0;           // numbers in E, P (when learned), U and every head's weights

    // The same numbers as matrices, for the list (numbers of tokens and steps as floats):
    Matrix tokens;                             // (1 × n) the shown sequence
    Matrix loss_first_half, loss_second_half;  // (logged steps × 1) the curve
    Matrix score_table;                        // (heads × 4) previous-token, start and trained; induction, same
    Matrix accuracy;                           // (1 × 2) trained, held out: first half, second half
    Matrix generated_tokens;                   // (1 × n) the prompt, then the generated tokens

    // In the order the lesson shows them: the shown sequence, the curves, the trained parameters
    // and every head's weights on the sequence (rows and columns "tokens"), the scores (rows
    // "heads", columns "scores"), the accuracy ("trained" × "halves"), the generation.
    MatrixList matrices() const;
};

Induction train_induction(const Settings& s, const Progress& progress);
