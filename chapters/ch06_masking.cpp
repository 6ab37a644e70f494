// Chapter 06 · Masking: what a token may not see
//
// Attention lets every token look at every key. Two kinds of model need to hide
// some keys:
//
//   a decoder (GPT) predicts the next token, so a token may not look ahead:
//   the causal mask hides every key to its right;
//
//   a batch holds sentences of different lengths, padded to one length: the
//   padding mask hides the pads, so that they take no weight.
//
// A hidden key's scaled score becomes −inf before the softmax; exp(−inf) = 0,
// so its weight is exactly 0 and the other weights of the row still sum to 1.
//
//   weights = softmax(Q · Kᵀ / √d_k + M),   M(i, j) = 0 where mask(i, j) = 1, −inf where it is 0
//
// Shapes: X (n × d_model); W_Q, W_K, W_V (d_model × d_k) from data/projections/;
// Q, K, V (n × d_k); mask, scores, weights (n × n); output (n × d_k).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/math/attention.hpp"
#include "common/lesson/elide.hpp"
#include "common/math/input_error.hpp"
#include "common/lesson/lesson.hpp"
#include "common/math/mask.hpp"
#include "common/math/matmul.hpp"
#include "common/lesson/self_check.hpp"
#include "common/lesson/sequence.hpp"
#include "common/math/softmax.hpp"
#include "common/lesson/text_table.hpp"

namespace {

const std::string default_sentence = "the animal didn't cross the street because it was too tired";
const std::string short_sentence = "this forum is awesome";
const std::string pad_token = "<pad>";

struct Projections {
    LabelledMatrix W_Q, W_K, W_V;  // (d_model × d_k) each
};

// The sequence padded with zero rows labelled <pad>, on the right (a batch for
// an encoder) or on the left (a batch for generation), to `length` tokens.
Sequence pad(const Sequence& seq, std::size_t length, bool left) {
    const std::size_t n = rows(seq.X), pads = length - n, first = left ? pads : 0;
    Sequence padded{Labels(length, pad_token), seq.dimensions, Matrix::from_shape({length, cols(seq.X)})};
    padded.X.fill(0.0f);
    for (std::size_t i = 0; i < n; ++i) {
        padded.tokens[first + i] = seq.tokens[i];
        for (std::size_t d = 0; d < cols(seq.X); ++d) padded.X(first + i, d) = seq.X(i, d);
    }
    return padded;
}

// The rows [first, first + count) of m.
Matrix row_block(const Matrix& m, std::size_t first, std::size_t count) {
    Matrix block = Matrix::from_shape({count, cols(m)});
    for (std::size_t i = 0; i < count; ++i)
        for (std::size_t j = 0; j < cols(m); ++j) block(i, j) = m(first + i, j);
    return block;
}

bool hidden_weights_are_zero(const Matrix& weights, const Matrix& mask) {
    for (std::size_t i = 0; i < weights.size(); ++i)
        if (mask.flat(i) == 0.0f && weights.flat(i) != 0.0f) return false;
    return true;
}

// The largest |Σ_j weights(i, j) − 1| over the rows that have a visible key.
double worst_row_sum_error(const Matrix& weights, const Matrix& mask) {
    double worst = 0.0;
    for (std::size_t i = 0; i < rows(weights); ++i) {
        double sum = 0.0, visible = 0.0;
        for (std::size_t j = 0; j < cols(weights); ++j) sum += weights(i, j), visible += mask(i, j);
        if (visible > 0.0) worst = std::max(worst, std::abs(sum - 1.0));
    }
    return worst;
}

// The rows `which` of m, in that order.
Matrix pick_rows(const Matrix& m, const std::vector<std::size_t>& which) {
    Matrix picked = Matrix::from_shape({which.size(), cols(m)});
    for (std::size_t r = 0; r < which.size(); ++r)
        for (std::size_t j = 0; j < cols(m); ++j) picked(r, j) = m(which[r], j);
    return picked;
}

// For each row, the weight its visible keys keep of a softmax over every key,
// summed in float as softmax_then_renormalise sums it.
std::vector<float> visible_weight(const Matrix& weights, const Matrix& mask) {
    std::vector<float> kept(rows(weights), 0.0f);
    for (std::size_t i = 0; i < rows(weights); ++i)
        for (std::size_t j = 0; j < cols(weights); ++j)
            if (mask(i, j) != 0.0f) kept[i] += weights(i, j);
    return kept;
}

// How far row i's best hidden score lies above its best visible one.
double hidden_lead(const Matrix& scores, const Matrix& mask, std::size_t i) {
    double best_hidden = -std::numeric_limits<double>::infinity(), best_visible = best_hidden;
    for (std::size_t j = 0; j < cols(scores); ++j) {
        double& best = mask(i, j) != 0.0f ? best_visible : best_hidden;
        best = std::max(best, static_cast<double>(scores(i, j)));
    }
    return best_hidden - best_visible;
}

// How much of row i's weight falls on the keys [0, count).
float weight_on_first(const Matrix& weights, std::size_t i, std::size_t count) {
    float sum = 0.0f;
    for (std::size_t j = 0; j < count; ++j) sum += weights(i, j);
    return sum;
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch06_masking", "Chapter 06 · Masking: what a token may not see");
    const std::string& input = lesson.add_input_option(
        "\"" + default_sentence + "\" (for the causal mask; the batch examples keep their sentences)");

    return lesson.run(argc, argv, [&] {
        const Projections W{read_data_file("projections/W_Q.csv"), read_data_file("projections/W_K.csv"),
                            read_data_file("projections/W_V.csv")};
        const Sequence seq = load_sequence(input, default_sentence);
        require_projects(W.W_Q, seq, input.empty() ? data_path("embeddings.csv") : input);
        const auto project = [&](const Sequence& s) {  // Q, K, V of a sequence, as in chapter 05
            return std::array<Matrix, 3>{matmul(s.X, W.W_Q.values), matmul(s.X, W.W_K.values),
                                         matmul(s.X, W.W_V.values)};
        };
        const Labels& tokens = seq.tokens;
        const std::size_t n = tokens.size();

        // ── Step 1: the sentence and its projections ─────────────────────────
        lesson.step("The sentence, its queries, keys and values");
        lesson.say(
            "As in chapter 05: the embeddings X times the hand-made projections of\n"
            "data/projections/ give each token a query, a key and a value (d_k = 4).");
        lesson.show("X", "", seq.X, tokens, seq.dimensions, 1);  // (n × d_model)
        const auto [Q, K, V] = project(seq);                       // (n × d_k) each
        lesson.keep_for_dump("W_Q", W.W_Q.values);                 // (d_model × d_k), as read
        lesson.keep_for_dump("W_K", W.W_K.values);
        lesson.keep_for_dump("W_V", W.W_V.values);
        lesson.show("Q", "X · W_Q", Q, tokens, W.W_Q.columns, 2);
        lesson.show("K", "X · W_K", K, tokens, W.W_K.columns, 2);
        lesson.show("V", "X · W_V", V, tokens, W.W_V.columns, 2);

        // ── Step 2: the causal mask ──────────────────────────────────────────
        lesson.step("The causal mask: a token may not look ahead");
        lesson.say(
            "A decoder writes a sentence one token at a time. While it trains, every\n"
            "position predicts the next token in parallel, so position i must not see\n"
            "the tokens after it: they are the answer. mask(i, j) = 1 when key j may be\n"
            "seen by query i (j ≤ i), 0 when it is hidden: a lower triangle.");
        const Matrix mask = causal_mask(n);  // (n × n)
        lesson.show("mask", "1 where j ≤ i", mask, tokens, tokens, 0);

        // ── Step 3: masked scores ────────────────────────────────────────────
        lesson.step("Hidden keys get a score of −inf");
        lesson.say(
            "The scores are computed for every pair as before (one matrix product is\n"
            "cheaper than skipping half of it); then every hidden score is replaced by −inf.");
        const MaskedAttentionSteps causal = masked_attention(Q, K, V, mask);
        lesson.keep_for_dump("scores", causal.scores);                // (n × n) Q · Kᵀ
        lesson.keep_for_dump("scaled_scores", causal.scaled_scores);  // (n × n) / √d_k
        lesson.show("masked_scores", "Q · Kᵀ / √d_k, −inf where mask = 0", causal.masked_scores, tokens, tokens, 2);

        // ── Step 4: weights and output ───────────────────────────────────────
        lesson.step("Softmax: hidden keys get a weight of exactly 0");
        lesson.say(
            "exp(−inf) = 0, so each hidden key's weight is exactly 0, and the softmax\n"
            "shares the whole weight of 1 among the visible keys. The first token sees\n"
            "only itself: its weight on itself is 1.");
        lesson.show("weights", "softmax(masked_scores)", causal.weights, tokens, tokens);
        lesson.show("output", "weights · V", causal.output, tokens, W.W_V.columns);
        const auto it = std::find(tokens.begin(), tokens.end(), "it");
        const auto animal = std::find(tokens.begin(), tokens.end(), "animal");
        if (it != tokens.end() && animal < it)
            lesson.say(fmt::format(
                "\n\"it\" still finds \"animal\" ({:.2f}): the word it stands for came before it.\n"
                "Hiding the future costs \"it\" nothing here.",
                causal.weights(static_cast<std::size_t>(it - tokens.begin()),
                               static_cast<std::size_t>(animal - tokens.begin()))));

        // ── Step 5: the other way ────────────────────────────────────────────
        const std::size_t q = it != tokens.end() ? static_cast<std::size_t>(it - tokens.begin()) : n / 2;
        lesson.step(fmt::format("The other way: softmax first, then forget the future (query \"{}\")", tokens[q]));
        lesson.say(
            "Another way to mask: take the softmax over every key, set the hidden weights\n"
            "to 0, and divide what is left by its sum so that it adds up to 1 again. The\n"
            "exp(s_j − max) of the visible keys are shared by both ways, and so is their\n"
            "ratio: the weights are the same.");
        const Matrix unmasked = softmax_rows(causal.scaled_scores);  // (n × n) every key
        const Matrix renormalised = softmax_then_renormalise(causal.scaled_scores, mask);
        const std::vector<float> kept = visible_weight(unmasked, mask);
        // A row whose kept weight is below the smallest normal float has lost its
        // digits (or is 0): dividing by it cannot give the −inf weights back.
        std::vector<std::size_t> sound_rows, broken_rows;
        for (std::size_t i = 0; i < n; ++i)
            (kept[i] >= std::numeric_limits<float>::min() ? sound_rows : broken_rows).push_back(i);
        std::vector<TextRow> table;
        for (const std::size_t j : elided_indices(n)) {
            if (j == elided) {
                table.push_back({"…"});
                continue;
            }
            table.push_back({tokens[j], fmt::format("{:.3f}", unmasked(q, j)), mask(q, j) != 0.0f ? "yes" : "no",
                             fmt::format("{:.3f}", renormalised(q, j)), fmt::format("{:.3f}", causal.weights(q, j))});
        }
        fmt::print("\n{}",
                   format_table({"key", "softmax over all", "visible", "÷ what is left", "−inf way"}, table));
        lesson.say(fmt::format(
            "\nThe visible keys kept {:.3f} of the weight; {}.\n"
            "The −inf way is the one models use: one softmax, and no division by a sum\n"
            "that can underflow to 0 when a hidden key has a much larger score.",
            kept[q], kept[q] >= std::numeric_limits<float>::min() ? "dividing by it gives the −inf weights"
                                                                  : "there is nothing to divide by"));
        if (!broken_rows.empty()) {
            const std::size_t b = broken_rows.front();
            const double lead = hidden_lead(causal.scaled_scores, mask, b);
            lesson.say(fmt::format(
                "\nWith these scores it does underflow. For {} of the {} queries (the first: \"{}\") a\n"
                "hidden key scores {:.2g} more than every visible key; exp(−{:.2g}) is far below\n"
                "the smallest float32 (about 1e-38), so the visible keys keep {} of the weight,\n"
                "and dividing by that cannot give back weights that sum to 1 (a row that keeps\n"
                "0 becomes all zeros). The self-check compares the two ways only on the other\n"
                "{} rows.",
                broken_rows.size(), n, tokens[b], lead, lead,
                kept[b] == 0.0f ? std::string("0") : fmt::format("{:.1e}", kept[b]), sound_rows.size()));
        }

        // ── Step 6: the padding mask ─────────────────────────────────────────
        lesson.step("The padding mask: a batch of two sentences");
        const LabelledMatrix embeddings = read_data_file("embeddings.csv");
        const Sequence long_seq = embed_sentence(embeddings, default_sentence);
        const Sequence short_seq = embed_sentence(embeddings, short_sentence);
        const std::size_t length = rows(long_seq.X), short_n = rows(short_seq.X);
        lesson.say(fmt::format(
            "A batch is one tensor, so its sentences must have one length.\n"
            "\"{}\" ({} tokens) is padded to {} with {} tokens whose\n"
            "embedding is 0. The padding mask has one row per sentence: 1 for a real\n"
            "token, 0 for a pad.",
            short_sentence, short_n, length, length - short_n, pad_token));
        const Matrix padding = padding_mask({length, short_n}, length);  // (b × n)
        Labels positions;
        for (std::size_t j = 0; j < length; ++j) positions.push_back(std::to_string(j));
        lesson.show("padding_mask", "1 = real token, 0 = pad", padding, {"sentence0", "sentence1"}, positions, 0);
        lesson.say(
            "\nSentence 0 fills the batch: its row is all ones and its attention is the\n"
            "plain one. Sentence 1's row hides the pad keys from every query:");
        const Sequence padded = pad(short_seq, length, false);
        const Matrix padded_mask = key_mask(padding, 1);  // (n × n) every query row = padding row 1
        const auto [Qp, Kp, Vp] = project(padded);
        const MaskedAttentionSteps batch = masked_attention(Qp, Kp, Vp, padded_mask);
        lesson.keep_for_dump("padded_X", padded.X);
        lesson.keep_for_dump("padded_mask", padded_mask);
        lesson.show("padded_scores", "Q · Kᵀ / √d_k, −inf at the pad keys", batch.masked_scores, padded.tokens,
                    padded.tokens, 2);
        lesson.show("padded_weights", "softmax(padded_scores)", batch.weights, padded.tokens, padded.tokens);
        lesson.show("padded_output", "padded_weights · V", batch.output, padded.tokens, W.W_V.columns);
        const AttentionSteps unmasked_batch = scaled_dot_product_attention(Qp, Kp, Vp);
        const auto [Qs, Ks, Vs] = project(short_seq);
        const AttentionSteps alone = scaled_dot_product_attention(Qs, Ks, Vs);
        lesson.say(fmt::format(
            "\nThe pad columns are 0, so the {} real tokens get exactly the output they get\n"
            "alone, without the pads. Without the mask, a pad's key is 0, its score 0, and\n"
            "each real token would give the pads {:.2f} of its weight (\"forum\": {:.2f}).\n"
            "\n"
            "The pad rows are queries too. A pad's query is 0, so it scores every real key\n"
            "0 and spreads its weight evenly over them. Its output is a meaningless row,\n"
            "and that does not matter: nothing reads it. The loss skips pad positions, and\n"
            "in every later layer the pads are hidden again as keys.",
            short_n, 1.0f - weight_on_first(unmasked_batch.weights, 0, short_n),
            1.0f - weight_on_first(unmasked_batch.weights, 1, short_n)));

        // ── Step 7: a row with nothing to see ────────────────────────────────
        lesson.step("A row with every key hidden");
        const std::size_t left_n = short_n + 2;
        const Sequence left = pad(short_seq, left_n, true);
        Matrix real = Matrix::from_shape({1, left_n});
        for (std::size_t j = 0; j < left_n; ++j) real(0, j) = left.tokens[j] == pad_token ? 0.0f : 1.0f;
        const Matrix left_mask = causal_mask(left_n) * key_mask(real, 0);  // (n × n): both masks at once
        lesson.say(
            "A decoder's batch is padded on the left, so that every sentence ends where\n"
            "the next token is written. Combine the causal mask with the padding mask\n"
            "(multiply them): the pads at the start see only keys at or before them, which\n"
            "are pads. Their rows hide every key.");
        lesson.show("left_mask", "causal · padding", left_mask, left.tokens, left.tokens, 0);
        const auto [Ql, Kl, Vl] = project(left);
        lesson.keep_for_dump("left_X", left.X);
        const MaskedAttentionSteps generation = masked_attention(Ql, Kl, Vl, left_mask);
        lesson.show("left_scores", "Q · Kᵀ / √d_k, −inf where left_mask = 0", generation.masked_scores, left.tokens,
                    left.tokens, 2);
        const float minus_infinity = -std::numeric_limits<float>::infinity();
        const float textbook = std::exp(minus_infinity - minus_infinity);  // the textbook softmax, row 0
        lesson.say(fmt::format(
            "\nThe textbook softmax of row 0 subtracts the row maximum: −inf − (−inf) = {},\n"
            "and exp({}) = {}, so every weight of the row would be {}. NaN spreads: in\n"
            "weights · V, a weight of 0 times a NaN value is NaN again, so one NaN pad\n"
            "would reach every real token in the next layer. A row with no visible key\n"
            "has no weight to give: softmax_rows makes it all zeros (as PyTorch's\n"
            "scaled_dot_product_attention does), and its output is a zero row.",
            format_number(minus_infinity - minus_infinity, 3), format_number(minus_infinity - minus_infinity, 3),
            format_number(textbook, 3), format_number(textbook, 3)));
        lesson.show("left_weights", "softmax(left_scores)", generation.weights, left.tokens, left.tokens);
        lesson.show("left_output", "left_weights · V", generation.output, left.tokens, W.W_V.columns);

        // ── Self-checks ──────────────────────────────────────────────────────
        lesson.step("Self-checks");
        auto& check = lesson.checks();
        check.that("every hidden (future) key has a weight of exactly 0", hidden_weights_are_zero(causal.weights, mask));
        check.close("every row of weights sums to 1", worst_row_sum_error(causal.weights, mask), row_sum_tolerance(n));
        check.close("the first token sees only itself: weight 1, output = its value",
                    std::max(std::abs(double(causal.weights(0, 0)) - 1.0),
                             max_abs_difference(row_block(causal.output, 0, 1), row_block(V, 0, 1))),
                    1e-6);
        check.close(broken_rows.empty()
                        ? std::string("softmax, zero the future, renormalise = softmax of the −inf scores")
                        : fmt::format("softmax, zero the future, renormalise = softmax of the −inf scores "
                                      "(the {} rows whose visible keys kept some weight)",
                                      sound_rows.size()),
                    max_abs_difference(pick_rows(renormalised, sound_rows), pick_rows(causal.weights, sound_rows)),
                    1e-6);
        const std::size_t prefix = std::max<std::size_t>(1, n / 2);
        const MaskedAttentionSteps head_only =
            masked_attention(row_block(Q, 0, prefix), row_block(K, 0, prefix), row_block(V, 0, prefix),
                             causal_mask(prefix));
        check.close(prefix == 1 ? "the first token's output does not depend on the tokens after it"
                                : fmt::format("the first {} tokens' outputs do not depend on the tokens after them", prefix),
                    max_abs_difference(head_only.output, row_block(causal.output, 0, prefix)), 1e-6);
        check.that("every pad key has a weight of exactly 0", hidden_weights_are_zero(batch.weights, padded_mask));
        check.close("padded and masked, the real tokens get the output they get alone",
                    max_abs_difference(row_block(batch.output, 0, short_n), alone.output), 1e-6);
        const std::size_t pads = left_n - short_n;  // the rows with every key hidden
        const bool empty_rows_are_zero =
            std::all_of(&generation.weights(0, 0), &generation.weights(0, 0) + pads * left_n,
                        [](float w) { return w == 0.0f; }) &&
            std::all_of(&generation.output(0, 0), &generation.output(0, 0) + pads * cols(Vl),
                        [](float v) { return v == 0.0f; });
        check.that("a row with every key hidden has zero weights and a zero output, and nothing is NaN",
                   empty_rows_are_zero && all_finite(generation.weights) && all_finite(generation.output));
        const MaskedAttentionSteps short_causal = masked_attention(Qs, Ks, Vs, causal_mask(short_n));
        check.close("left-padded, the real tokens get their causal output without the pads",
                    max_abs_difference(row_block(generation.output, pads, short_n), short_causal.output),
                    1e-6);
    });
}
