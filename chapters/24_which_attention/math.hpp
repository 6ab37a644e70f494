// Chapter 24 · the mathematics: which attention? Chapter 22's GPT with each attention of
// chapters 14–20 in its blocks (common/gpt/gpt_attention.hpp gives their formulas), every one
// trained on the book by the same recipe (the same tokens, batches, seed, schedule and steps),
// then measured the same way:
//
//   parameters         Σ of the sizes of its tensors (nanoGPT's names, and the variant's own)
//   kept per token     what one layer keeps to decode the token after T others, in floats:
//                        softmax   keys read × the keys' and values' width 2·g·d_h, keys read
//                                  = min(T, w + s) with a window w and s sinks, else T (top-k
//                                  too: it reads k keys, but any of the T may be among them)
//                        MLA       T · (d_c + d_h/2): each token's latent c_KV and RoPE key
//                        linear    H · (d_h² + d_h): each head's S = Σ φ(k) vᵀ and z = Σ φ(k)
//                        delta     H · d_h²: each head's state S
//                      and at DeepSeek-V3's shape for 131,072 tokens (chapter 20's table)
//   held-out loss      mean −log p(next token) over W windows of T + 1 held-out tokens; each
//                      variant trained with N seeds: their mean, lowest and highest, and a rank
//                      that counts only the variants whose every seed ended lower
//   loss by position   the same mean at each position i = 0 … T−1 of the windows (T × 1): does
//                      the model still gain from tokens far back?
//   recall             P held-out passages of s = T/2 tokens, each written twice (2s = T tokens):
//                      the mean loss on the second copy (positions s … 2s−2 predict tokens 1 … s−1
//                      again) against the first (positions 0 … s−2). A model that can look s
//                      tokens back reads the answer from the first copy; a window narrower than
//                      s, or a state that forgets, cannot.
//
// Shapes: V vocabulary, T context, L blocks, H heads of width d_h = d_model / H, g key–value
// heads, W windows, P passages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/gpt/gpt_model.hpp"
#include "common/numbers/matrix.hpp"
#include "common/numbers/matrix_list.hpp"

// One row of the table: an attention and the chapter that teaches it.
struct VariantChoice {
    std::string name, chapter;
    GptAttention attention;
    std::string flag;  // its name for --variant: mha, mqa, gqa, rope, window, window-sinks, …
};

// Every variant's --variant name, in the table's order.
std::vector<std::string> variant_flags();

// The variants at this model's shape: MHA, MQA, GQA (g = H/2: left out when H/2 is not
// between 1 and H), MLA (a latent of d_c = 4·d_h, DeepSeek-V3's 512 = 4 · 128; left out when 4
// does not divide d_h), RoPE (left out when d_h is odd), a sliding window of w = T/4 keys, that
// window with s = 4 sinks, a learned sink logit, top-k of the head's own scores with k = w,
// linear attention, DeltaNet, gated DeltaNet.
std::vector<VariantChoice> variant_choices(const GptConfig& config);

// A window of T/4 keys (at least 1) and 4 sinks; MLA's latent of 4·d_h.
std::size_t window_of(const GptConfig& config);
constexpr std::size_t sinks_kept = 4;
std::size_t latent_width(const GptConfig& config);

// What one layer keeps per decoded token (the formulas above), at this model's shape.
std::uint64_t kept_floats(const GptConfig& config);

// The same read off a forward pass of the model on one window of T tokens: the key and value
// columns of [q k v] (MLA: of c_KV and the RoPE key) times the keys a query reads (a head's
// weights that are not 0 on the last row; top-k's read without its choice, as every key may be
// chosen), or the width of each head's state. Computed another way, for the self-check.
std::uint64_t kept_floats_seen(const Gpt<float>& model, const Tokens& window);

struct VariantMeasures {
    double held_out = 0;       // the mean loss over the W windows
    Matrix by_position;        // (1 × T) the mean loss at each position
    double first_copy = 0, second_copy = 0;  // recall: the loss on each copy of the passages
};

// The held-out windows that measure every model: at most `windows` windows of T + 1 tokens
// spread evenly over the held-out ids (gpt_training.hpp's held_out_loss takes the same ones),
// one a row (W × T + 1): a model reads the first T of a row and predicts the last T.
Matrix measured_windows(const Tokens& held_out, std::size_t context, std::size_t windows);

// The measures of a trained model on the held-out tokens: the windows above, and `passages`
// passages of T/2 tokens spread evenly, each repeated.
VariantMeasures measure_variant(const Gpt<float>& model, const Tokens& held_out, std::size_t windows,
                                std::size_t passages);

// The recall's first copy another way: the same passages read alone (s tokens, not 2s), the
// mean loss of their s − 1 predictions. Causal attention never reads a later token, so the
// first copy of a doubled passage is predicted from the same tokens.
double passages_alone(const Gpt<float>& model, const Tokens& held_out, std::size_t passages);

// A sentence through one variant's model (n ≤ T tokens): each head's weights — the causal
// softmax or linear attention's, or for the delta rules the state unrolled, the matrix M with
// z_t = Σ_{j≤t} M[t, j] v_j (attention_only_model.hpp writes it out) — and after each token the
// three most likely next tokens, p = softmax(logits).
struct VariantReading {
    Tokens ids;
    Matrix token_ids;             // (1 × n) the ids, for --dump
    Matrix logits;                // (n × V) the next token's logits after each token
    std::vector<Matrix> weights;  // [l·H + h] (n × n)
    Matrix outputs_error;         // (1 × 1) the largest |z_h − weights · v_h| over every head and token
    Matrix top_ids, top_probabilities;  // (n × 3)
    std::size_t heads = 0;
    std::string formula;          // what the weights are, for the page and --dump

    MatrixList matrices() const;
};
constexpr std::size_t next_shown = 3;

VariantReading read_with_variant(const Gpt<float>& model, const Tokens& ids);

// Over seeds: `losses` (K × N) holds variant k's held-out loss when trained with the j-th of N
// seeds (each draws other first weights and other batches). A variant ranks below another only
// when every one of its N losses is lower than every one of the other's (their ranges do not
// touch): rank k = 1 + the variants whose highest loss is below k's lowest. The same rank is a
// tie at this budget.
struct SeedSpread {
    Matrix mean, low, high;  // (K × 1) over the N seeds
    Matrix rank;             // (K × 1) 1, 2, …
};
SeedSpread spread_over_seeds(const Matrix& losses);

// Two variants that do not differ (every order of their 2N losses equally likely) still
// separate completely, one's N below the other's N, with this chance: 2 / C(2N, N).
double separation_by_chance(std::size_t seeds);

// The mean of a (1 × T) row over the positions [from, to).
double band_mean(const Matrix& by_position, std::size_t from, std::size_t to);

