// Chapter 22 · the mathematics: a small GPT learns Moby-Dick, and reads a sentence.
//
// The model (common/math/gpt_model.hpp, nanoGPT's architecture, GPT-2's):
//   x₀ = wte[tokens] + wpe[positions]                      (n × d)
//   L blocks: x += attn(ln_1(x)), x += mlp(ln_2(x))        causal multi-head attention, MLP 4d wide
//   logits = ln_f(x) · wteᵀ                                (n × V)  the output layer is wte, tied
// trained on the first 90 % of the text's tokens by AdamW (common/math/gpt_training.hpp).
//
// What the lesson computes with the trained model, here:
//   - a sentence's attention: for every layer l and head h the weights (n × n)
//       A_lh = softmax_causal(Q_h K_hᵀ / √d_h),  Q_h, K_h from ln_1 of the block's input
//   - after each token i, the five most likely next tokens: the largest entries of
//       p_i = softmax(logits_i)                            (V)
//   - where each head looks most: for each query i, argmax_j A_lh[i, j]
//
// Shapes: n tokens of the sentence (n ≤ T, the context), V vocabulary, d = d_model, L layers,
// H heads of width d_h = d / H.
#pragma once

#include <cstddef>
#include <vector>

#include "common/math/gpt_model.hpp"
#include "common/math/matrix.hpp"
#include "common/math/matrix_list.hpp"

constexpr std::size_t predictions_shown = 5;  // the most likely next tokens after each token

struct SentenceRead {
    Tokens ids;                   // (n) the sentence's tokens
    GptForward<float> forward;    // the model's forward pass over them
    Matrix token_ids;             // (1 × n) the ids, as numbers
    Matrix logits;                // (n × V) row i: the scores of the token after token i
    std::vector<Matrix> weights;  // [l·H + h] (n × n) head h of layer l
    Matrix top_ids;               // (n × 5) after token i, the five most likely next tokens
    Matrix top_probabilities;     // (n × 5) their probabilities p_i[·]
    Matrix looks_most;            // (L·H × n) for each head and query i: argmax_j A[i, j]
    std::size_t layers = 0, heads = 0;

    // token_ids, logits, every head's weights (rows and columns "tokens", the family
    // "layer_head_weights"), top_ids and top_probabilities (rows "tokens"), looks_most.
    MatrixList matrices() const;
};

// The model's reading of one sentence (1 ≤ n ≤ T tokens).
SentenceRead read_sentence(const Gpt<float>& model, const Tokens& ids);

// The k largest entries of softmax(row), largest first (ties: the smaller id), with their
// probabilities. The softmax is taken in double, its largest logit subtracted first.
void most_likely(const float* logits, std::size_t V, std::size_t k, std::vector<std::size_t>& ids,
                 std::vector<double>& probabilities);
