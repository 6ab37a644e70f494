// Chapter 22 · the mathematics: a small GPT learns Moby-Dick, and reads a sentence.
//
// The model (common/gpt/gpt_model.hpp, nanoGPT's architecture, GPT-2's):
//   x₀ = wte[tokens] + wpe[positions]                      (n × d)
//   L blocks: x += attn(ln_1(x)), x += mlp(ln_2(x))        causal multi-head attention, MLP 4d wide
//   logits = ln_f(x) · wteᵀ                                (n × V)  the output layer is wte, tied
// trained on the first 90 % of the text's tokens by AdamW (common/gpt/gpt_training.hpp).
//
// Here, the forward pass of one sentence written plainly, as the formulas read (common/gpt's
// gpt_forward computes the same for a whole batch, with kept buffers and fixed-order products,
// for training; the self-checks compare the two):
//
//   1. x₀ = wte[ids] + wpe[0 … n−1]                                  (n × d)
//   2. per block l: a = LN(x; ln_1)                                    (n × d)
//        [q k v] = a · c_attnᵀ + b                                     (n × 3d)
//        head h: q_h = columns h·d_h … of q (likewise k_h, v_h)        (n × d_h)
//                S_h = q_h k_hᵀ / √d_h, −∞ where key j > query i      (n × n)
//                A_h = softmax of each row of S_h;  z_h = A_h v_h      (n × n), (n × d_h)
//        x += [z_0 … z_{H−1}] · attn.c_projᵀ + b                       (n × d)
//        x += GELU(LN(x; ln_2) · c_fcᵀ + b) · mlp.c_projᵀ + b          (n × 4d) inside
//        GELU(z) = z · Φ(z) = ½ z (1 + erf(z/√2)), exactly (nanoGPT's nn.GELU)
//   3. logits = LN(x; ln_f) · wteᵀ                                     (n × V) wte, tied
//   then, after each token i, the five most likely next tokens: the largest entries of
//      p_i = softmax(logits_i)                                         (V)
//   and where each head looks most: for each query i, argmax_j A_h[i, j].
//
// Writing, one token at a time, through chapter 13's cache (common/gpt/gpt_decoding.hpp): the
// prompt read into the cache, then for each new token t:
//   logits ℓ = what the cache gives after the last token                  (V)
//   the model's own odds  p = softmax(ℓ); as drawn  q = softmax(ℓ / τ) over the top k, cut to
//   the top p and rescaled (common/gpt/gpt_sampling.hpp); t = the draw from q (--greedy: the
//   largest ℓ), and t read into the cache: its attention over every token so far, each head's
//   softmax(q_t K_hᵀ / √d_h) over the keys the cache keeps                (t + 1 keys)
//
// Weights are stored as PyTorch's nn.Linear stores them, (out × in): x · Wᵀ.
// Shapes: n tokens of the sentence (n ≤ T, the context), V vocabulary, d = d_model, L layers,
// H heads of width d_h = d / H.
#pragma once

#include <cstddef>
#include <vector>

#include "common/gpt/gpt_model.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"

constexpr std::size_t predictions_shown = 5;  // the most likely next tokens after each token

struct SentenceRead {
    Tokens ids;                   // (n) the sentence's tokens
    Matrix token_ids;             // (1 × n) the ids, as numbers
    Matrix embedded;              // (n × d) x₀ = wte[ids] + wpe[0 … n−1]
    std::vector<Matrix> queries, keys, values;  // [l·H + h] (n × d_h) each head's q_h, k_h, v_h
    Matrix logits;                // (n × V) row i: the scores of the token after token i
    std::vector<Matrix> weights;  // [l·H + h] (n × n) head h of layer l
    Matrix top_ids;               // (n × 5) after token i, the five most likely next tokens
    Matrix top_probabilities;     // (n × 5) their probabilities p_i[·]
    Matrix looks_most;            // (L·H × n) for each head and query i: argmax_j A[i, j]
    std::size_t heads = 0;        // H, to tell a head's layer (k / H) and head (k % H) in weights[k]

    // token_ids, logits, every head's weights (rows and columns "tokens", the family
    // "layer_head_weights"), top_ids and top_probabilities (rows "tokens"), looks_most.
    MatrixList matrices() const;
};

// The tokens written after a prompt, one at a time.
struct Writing {
    Tokens prompt, written;               // the prompt's ids; the N tokens drawn after it
    Matrix written_ids;                   // (1 × N) the same, as numbers
    Matrix candidates;                    // (N × 5) before token t: the five largest logits' ids
    Matrix model_odds, drawn_odds;        // (N × 5) their p (the model's) and q (as drawn)
    Matrix draws;                         // (N × 1) the uniform number each draw used
    Matrix written_odds;                  // (N × 2) the written token's p and q (among the five or not)
    std::vector<Matrix> attention;        // [l·H + h] (N × (P + N)) row t: written token t's weights from
                                          // the cache over the P + t + 1 tokens so far (0 after them)
    std::vector<std::vector<float>> logits;  // [t] the cache's logits before token t (for the checks)
    std::size_t heads = 0;                   // H: attention[k] is layer k / H, head k % H
    // written_ids, the candidates and their odds, draws, the written tokens' odds, every head's
    // attention (rows "written",
    // columns "text": the prompt's tokens and the written ones; the family "layer_head_writing")
    MatrixList matrices() const;
};
// N tokens after `prompt` (prompt + N ≤ T): temperature τ > 0, top k (0: all), top p in (0, 1],
// the draws from Random(seed) as generate() takes them (so the text is generate()'s).
Writing write_tokens(const Gpt<float>& model, const Tokens& prompt, std::size_t count, double temperature,
                     std::size_t top_k, double top_p, std::uint64_t seed);

// The model's reading of one sentence (1 ≤ n ≤ T tokens): passes 1–3 and what follows.
SentenceRead read_sentence(const Gpt<float>& model, const Tokens& ids);

// Pass 1: x₀ = wte[ids] + wpe[0 … n−1].
Matrix embed(const Gpt<float>& model, const Tokens& ids);
// y = LN(x) with a block's γ and β ((1 × d) each).
Matrix layer_norm_rows(const Matrix& x, const Matrix& gamma, const Matrix& beta);
// y = x · Wᵀ + b, W (out × in) as nn.Linear stores it, b (1 × out).
Matrix linear_layer(const Matrix& x, const Matrix& W, const Matrix& b);
// One head's weights A_h = softmax(causal(q_h k_hᵀ / √d_h)) (n × n).
Matrix head_weights(const Matrix& q, const Matrix& k);
// GELU(z) = ½ z (1 + erf(z/√2)), entry by entry.
Matrix gelu_exact(const Matrix& z);
// Pass 3: logits = LN(x; ln_f) · wteᵀ.
Matrix output_logits(const Gpt<float>& model, const Matrix& x);

// The k largest entries of softmax(row), largest first (ties: the smaller id), with their
// probabilities. The softmax is taken in double, its largest logit subtracted first.
void most_likely(const float* logits, std::size_t V, std::size_t k, std::vector<std::size_t>& ids,
                 std::vector<double>& probabilities);
