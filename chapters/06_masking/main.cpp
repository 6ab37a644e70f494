// Chapter 06 · Masking: what a token may not see
//
// The lesson: the masks of math.cpp, shown step by step (the causal mask, the
// −inf scores, the weights, the other way of masking, the padding mask of a
// batch, a row with nothing to see), then checked against what they must be,
// computed another way (the loop form in double, the sentence without its pads).
//
// Two kinds of model hide keys: a decoder (GPT) may not look ahead, and a batch
// of sentences padded to one length must not look at the pads.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/06_masking/math.hpp"
#include "common/lesson/attention_tolerance.hpp"
#include "common/lesson/lesson.hpp"
#include "common/lesson/self_check.hpp"
#include "common/lesson/sequence.hpp"
#include "common/lesson/text_table.hpp"
#include "common/math/float32_range.hpp"

namespace {

const std::string default_sentence = "the animal didn't cross the street because it was too tired";
const std::string short_sentence = "this forum is awesome";
const std::string pad_token = "<pad>";

struct Projections {
    LabelledMatrix W_Q, W_K, W_V;  // (d_model × d_k) each
};

// The tokens padded with <pad> to `length`, on the right or on the left.
Labels pad_tokens(const Labels& tokens, std::size_t length, bool left) {
    Labels padded(length, pad_token);
    std::copy(tokens.begin(), tokens.end(), padded.begin() + (left ? long(length - tokens.size()) : 0));
    return padded;
}

// What the visible keys of a broken row kept, in words that follow float32's range.
std::string what_was_kept(float kept) {
    if (float32_range(kept) == Float32Range::zero)
        return fmt::format("0: below even the smallest subnormal float32 ({:.2g} ≈ e^−{:.1f}),\n"
                           "and a row that keeps 0 becomes all zeros.",
                           std::numeric_limits<float>::denorm_min(), exp_gap_of_smallest_subnormal());
    return fmt::format("{:.1e}: below the smallest normal float32 ({:.3g} ≈ e^−{:.1f}), a\n"
                       "subnormal that is not 0 but has too few significant bits to give the\n"
                       "weights back to float precision.",
                       kept, std::numeric_limits<float>::min(), exp_gap_of_smallest_normal());
}

// Step other-way: softmax over every key, zero the hidden ones, renormalise.
void show_other_way(Lesson& lesson, const Labels& tokens, std::size_t q, const Causal& c) {
    lesson.say(
        "Another way to mask: take the softmax over every key, set the hidden weights\n"
        "to 0, and divide what is left by its sum so that it adds up to 1 again. The\n"
        "exp(s_j − max) of the visible keys are shared by both ways, and so is their\n"
        "ratio: the weights are the same.");
    std::vector<TextRow> table;
    for (std::size_t j = 0; j < tokens.size(); ++j) {
        table.push_back({tokens[j], fmt::format("{:.3f}", c.unmasked(q, j)), c.mask(q, j) != 0.0f ? "yes" : "no",
                         fmt::format("{:.3f}", c.renormalised(q, j)), fmt::format("{:.3f}", c.steps.weights(q, j))});
    }
    lesson.table({"key", "softmax over all", "visible", "÷ what is left", "−inf way"}, table);
    const bool sound = c.kept[q] >= std::numeric_limits<float>::min();
    lesson.say(
        fmt::format("The visible keys kept {:.3f} of the weight; {}.\n"
                    "The −inf way is the one models use: one softmax, and no division by a sum\n"
                    "that can underflow to 0 when a hidden key has a much larger score.",
                    c.kept[q], sound ? "dividing by it gives the −inf weights" : "there is nothing to divide by"));
    if (c.broken_rows.empty()) return;
    const std::size_t b = c.broken_rows.front();
    const double lead = hidden_lead(c.steps.scaled_scores, c.mask, b);
    lesson.say(fmt::format(
        "With these scores it does underflow. For {} of the {} queries (the first: \"{}\") a\n"
        "hidden key scores {:.3g} more than every visible key, so the visible keys keep\n"
        "about exp(−{:.3g}) of the weight. In float32 that is\n{}\n"
        "The self-check compares the two ways only on the other {} rows.",
        c.broken_rows.size(), tokens.size(), tokens[b], lead, lead, what_was_kept(c.kept[b]), c.sound_rows.size()));
}

// Step padding: a batch of two sentences, the short one padded on the right.
void show_padding(Lesson& lesson, const Labels& short_tokens, const Projections& W, const Padded& p) {
    const std::size_t length = cols(p.padding), short_n = short_tokens.size();
    const Labels tokens = pad_tokens(short_tokens, length, false);
    lesson.say(fmt::format("A batch is one tensor, so its sentences must have one length.\n"
                           "\"{}\" ({} tokens) is padded to {} with {} tokens whose\n"
                           "embedding is 0. The padding mask has one row per sentence: 1 for a real\n"
                           "token, 0 for a pad.",
                           short_sentence, short_n, length, length - short_n, pad_token));
    lesson.show("padding_mask", p.padding,
                ShowAs("1 = real token, 0 = pad")
                    .labels({"sentence0", "sentence1"}, numbered("", length))
                    .decimals(0)
                    .heat_map());
    lesson.say(
        "Sentence 0 fills the batch: its row is all ones and its attention is the\n"
        "plain one. Sentence 1's row hides the pad keys from every query:");
    lesson.keep_for_dump("padded_X", p.X);
    lesson.keep_for_dump("padded_mask", p.mask);
    lesson.show("padded_scores", p.batch.masked_scores,
                ShowAs("Q · Kᵀ / √d_k, −inf at the pad keys").labels(tokens, tokens).decimals(2));
    lesson.show("padded_weights", p.batch.weights, ShowAs("softmax(padded_scores)").labels(tokens, tokens).heat_map());
    lesson.show("padded_output", p.batch.output, ShowAs("padded_weights · V").labels(tokens, W.W_V.columns));
    lesson.say(
        fmt::format("The pad columns are 0, so the {} real tokens get exactly the output they get\n"
                    "alone, without the pads. Without the mask, a pad's key is 0, its score 0, and\n"
                    "each real token would give the pads {:.2f} of its weight (\"forum\": {:.2f}).\n"
                    "\n"
                    "The pad rows are queries too. A pad's query is 0, so it scores every real key\n"
                    "0 and spreads its weight evenly over them. Its output is a meaningless row,\n"
                    "and that does not matter: nothing reads it. The loss skips pad positions, and\n"
                    "in every later layer the pads are hidden again as keys.",
                    short_n, 1.0f - weight_on_first(p.unmasked.weights, 0, short_n),
                    1.0f - weight_on_first(p.unmasked.weights, 1, short_n)));
}

// Step empty-rows: left padding and the causal mask leave the pads nothing to see.
void show_empty_rows(Lesson& lesson, const Labels& short_tokens, const Projections& W, const LeftPadded& l) {
    const Labels tokens = pad_tokens(short_tokens, rows(l.X), true);
    lesson.say("A decoder's batch is padded on the left, so that every sentence ends where\n"
               "the next token is written. Combine the causal mask with the padding mask\n"
               "(multiply them): the pads at the start see only keys at or before them, which\n"
               "are pads. Their rows hide every key.");
    lesson.show("left_mask", l.mask, ShowAs("causal · padding").labels(tokens, tokens).decimals(0).heat_map());
    lesson.keep_for_dump("left_X", l.X);
    lesson.show("left_scores", l.generation.masked_scores,
                ShowAs("Q · Kᵀ / √d_k, −inf where left_mask = 0").labels(tokens, tokens).decimals(2));
    const float minus_infinity = -std::numeric_limits<float>::infinity();
    const std::string nan = format_number(minus_infinity - minus_infinity, 3);
    const std::string textbook = format_number(std::exp(minus_infinity - minus_infinity), 3);  // row 0
    lesson.say(
        fmt::format("The textbook softmax of row 0 subtracts the row maximum: −inf − (−inf) = {},\n"
                    "and exp({}) = {}, so every weight of the row would be {}. NaN spreads: in\n"
                    "weights · V, a weight of 0 times a NaN value is NaN again, so one NaN pad\n"
                    "would reach every real token in the next layer. A row with no visible key\n"
                    "has no weight to give: masked_softmax_rows makes it all zeros, and its output\n"
                    "is a zero row. PyTorch's scaled_dot_product_attention does the same since\n"
                    "version 2.5 (a mask that hides a whole row gives zeros); earlier versions give\n"
                    "NaN there, and a plain torch.softmax over a row of −inf still does.",
                    nan, nan, textbook, textbook));
    lesson.show("left_weights", l.generation.weights, ShowAs("softmax(left_scores)").labels(tokens, tokens).heat_map());
    lesson.show("left_output", l.generation.output, ShowAs("left_weights · V").labels(tokens, W.W_V.columns));
}

// Every weight that `hidden(i, j)` says a key must not get is exactly 0. The rule is
// written out here, not read from the chapter's mask, so a wrong mask cannot pass.
template <typename Hidden>
bool hidden_weights_are_zero(const Matrix& weights, Hidden hidden) {
    for (std::size_t i = 0; i < rows(weights); ++i)
        for (std::size_t j = 0; j < cols(weights); ++j)
            if (hidden(i, j) && weights(i, j) != 0.0f) return false;
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

// Each claim against something computed another way: the loops in double (which
// skip the hidden keys instead of giving them −inf), the sentence without its pads,
// the first tokens without the ones after them.
void check(SelfChecks& check, const Causal& c, const Padded& p, const LeftPadded& l, std::size_t short_n) {
    const std::size_t n = rows(c.mask);
    // The loops sum in double: they differ from the float matrices by the latter's rounding,
    // which grows with the size of the scores and of V (common/lesson/attention_tolerance.hpp).
    const AttentionTolerance causal = attention_tolerance(c.p.Q, c.p.K, c.p.V),
                             padded = attention_tolerance(p.p.Q, p.p.K, p.p.V);
    check.close("the loop over the visible keys (in double) gives the weights",
                max_abs_difference(c.loops.weights, c.steps.weights), causal.weights);
    check.close("the loop over the visible keys (in double) gives the output",
                max_abs_difference(c.loops.output, c.steps.output), causal.output);
    // The batches are the chapter's own sentences: tolerances of their own size.
    check.close("the loop (in double) gives the outputs of both padded batches",
                std::max(max_abs_difference(p.loops.output, p.batch.output),
                         max_abs_difference(l.loops.output, l.generation.output)),
                padded.output);
    check.that("every hidden (future) key has a weight of exactly 0",
               hidden_weights_are_zero(c.steps.weights, [](std::size_t i, std::size_t j) { return j > i; }));
    check.close("every row of weights sums to 1", worst_row_sum_error(c.steps.weights, c.mask), row_sum_tolerance(n));
    check.close("token 0 sees only itself: weight 1, output = its value",
                std::max(std::abs(double(c.steps.weights(0, 0)) - 1.0),
                         max_abs_difference(row_block(c.steps.output, 0, 1), row_block(c.p.V, 0, 1))),
                1e-6);
    check.close(c.broken_rows.empty()
                    ? std::string("softmax, zero the future, renormalise = the −inf way")
                    : fmt::format("renormalised = −inf way, on the {} rows that kept weight", c.sound_rows.size()),
                max_abs_difference(pick_rows(c.renormalised, c.sound_rows), pick_rows(c.steps.weights, c.sound_rows)),
                row_sum_tolerance(n));  // renormalising divides by a float sum of up to n weights
    const std::size_t prefix = std::max<std::size_t>(1, n / 2);
    const MaskedAttentionSteps head_only = masked_attention(row_block(c.p.Q, 0, prefix), row_block(c.p.K, 0, prefix),
                                                            row_block(c.p.V, 0, prefix), causal_mask(prefix));
    check.close(prefix == 1 ? "the first token's output ignores the tokens after it"
                            : fmt::format("the first {} tokens' outputs ignore the tokens after them", prefix),
                max_abs_difference(head_only.output, row_block(c.steps.output, 0, prefix)),
                causal.output);  // the same sums in float, in another order: the loops' bound
    check.that("every pad key has a weight of exactly 0",
               hidden_weights_are_zero(p.batch.weights, [&](std::size_t, std::size_t j) { return j >= short_n; }));
    check.close("masked pads leave the real tokens' outputs as they are alone",
                max_abs_difference(row_block(p.batch.output, 0, short_n), p.alone.output), 1e-6);
    const std::size_t pads = rows(l.X) - short_n, left_n = rows(l.X);  // the first `pads` rows hide every key
    const bool empty_rows_are_zero =
        std::all_of(&l.generation.weights(0, 0), &l.generation.weights(0, 0) + pads * left_n,
                    [](float w) { return w == 0.0f; }) &&
        std::all_of(&l.generation.output(0, 0), &l.generation.output(0, 0) + pads * cols(l.p.V),
                    [](float v) { return v == 0.0f; });
    check.that("a row with every key hidden: zero weights, zero output, no NaN",
               empty_rows_are_zero && all_finite(l.generation.weights) && all_finite(l.generation.output));
    check.close("left-padded, the real tokens keep their causal output",
                max_abs_difference(row_block(l.generation.output, pads, short_n), l.short_causal.output), 1e-6);
}

// What the chapter reads: the projections, the sentence of the causal mask (--input
// or the default), and the short sentence of the batch examples.
struct Inputs {
    Projections W;
    Sequence seq;            // the causal mask's sentence
    Sequence short_seq;      // padded in the batches
    std::size_t long_n = 0;  // the length the short sentence is padded to: the default sentence's
};

Inputs load_inputs(const std::string& input) {
    Inputs in{{read_data_file("projections/W_Q.csv"), read_data_file("projections/W_K.csv"),
               read_data_file("projections/W_V.csv")},
              load_sequence(input, default_sentence),
              {},
              0};
    require_projects(in.W.W_Q, in.seq, input.empty() ? data_path("embeddings.csv") : input);
    const LabelledMatrix embeddings = read_data_file("embeddings.csv");
    in.long_n = rows(embed_sentence(embeddings, default_sentence).X);
    in.short_seq = embed_sentence(embeddings, short_sentence);
    return in;
}

// Step sentence: X, and its queries, keys and values.
void show_sentence(Lesson& lesson, const Sequence& seq, const Projections& W, const Causal& c) {
    const Labels& tokens = seq.tokens;
    lesson.say("As in chapter 05: the embeddings X times the hand-made projections of\n"
               "data/projections/ give each token a query, a key and a value (d_k = 4).");
    lesson.show("X", seq.X, ShowAs().labels(tokens, seq.dimensions).decimals(1));  // (n × d_model)
    lesson.keep_for_dump("W_Q", W.W_Q.values);               // (d_model × d_k), as read
    lesson.keep_for_dump("W_K", W.W_K.values);
    lesson.keep_for_dump("W_V", W.W_V.values);
    lesson.show("Q", c.p.Q, ShowAs("X · W_Q").labels(tokens, W.W_Q.columns).decimals(2));
    lesson.show("K", c.p.K, ShowAs("X · W_K").labels(tokens, W.W_K.columns).decimals(2));
    lesson.show("V", c.p.V, ShowAs("X · W_V").labels(tokens, W.W_V.columns).decimals(2));
}

// Step causal-mask: the lower triangle.
void show_causal_mask(Lesson& lesson, const Labels& tokens, const Causal& c) {
    lesson.say("A decoder writes a sentence one token at a time. While it trains, every\n"
               "position predicts the next token in parallel, so position i must not see\n"
               "the tokens after it: they are the answer. mask(i, j) = 1 when key j may be\n"
               "seen by query i (j ≤ i), 0 when it is hidden: a lower triangle.");
    lesson.show("mask", c.mask, ShowAs("1 where j ≤ i").labels(tokens, tokens).decimals(0).heat_map());
}

// Step masked-scores: −inf where the mask is 0.
void show_masked_scores(Lesson& lesson, const Labels& tokens, const Causal& c) {
    lesson.say("The scores are computed for every pair as before (one matrix product is\n"
               "cheaper than skipping half of it); then every hidden score is replaced by −inf.");
    lesson.keep_for_dump("scores", c.steps.scores);                // (n × n) Q · Kᵀ
    lesson.keep_for_dump("scaled_scores", c.steps.scaled_scores);  // (n × n) / √d_k
    lesson.show("masked_scores", c.steps.masked_scores,
                ShowAs("Q · Kᵀ / √d_k, −inf where mask = 0").labels(tokens, tokens).decimals(2));
}

// Step weights: the softmax of the masked scores, and the output.
void show_weights(Lesson& lesson, const Labels& tokens, const Projections& W, const Causal& c) {
    const std::size_t it = index_of(tokens, "it"), animal = index_of(tokens, "animal");
    lesson.say("exp(−inf) = 0, so each hidden key's weight is exactly 0, and the softmax\n"
               "shares the whole weight of 1 among the visible keys. The first token sees\n"
               "only itself: its weight on itself is 1.");
    lesson.show("weights", c.steps.weights, ShowAs("softmax(masked_scores)").labels(tokens, tokens).heat_map());
    lesson.show("output", c.steps.output, ShowAs("weights · V").labels(tokens, W.W_V.columns));
    if (it < tokens.size() && animal < it)
        lesson.say(
            fmt::format("\"it\" still finds \"animal\" ({:.2f}): the word it stands for came before it.\n"
                        "Hiding the future costs \"it\" nothing here.",
                        c.steps.weights(it, animal)));
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch06_masking", "Chapter 06 · Masking: what a token may not see");
    const std::string& input = lesson.add_input_option(
        "\"" + default_sentence + "\" (for the causal mask; the batch examples keep their sentences)");

    return lesson.run(argc, argv, [&] {
        const Inputs in = load_inputs(input);
        const Matrix &W_Q = in.W.W_Q.values, &W_K = in.W.W_K.values, &W_V = in.W.W_V.values;
        const Causal c = causal_attention(in.seq.X, W_Q, W_K, W_V);
        const Padded p = padded_batch(in.short_seq.X, in.long_n, W_Q, W_K, W_V);
        const LeftPadded l = left_padded(in.short_seq.X, 2, W_Q, W_K, W_V);
        const Labels& tokens = in.seq.tokens;
        const std::size_t it = index_of(tokens, "it");
        const std::size_t q = it < tokens.size() ? it : tokens.size() / 2;  // the query of the other-way step

        lesson.step("sentence", "The sentence, its queries, keys and values",
                    [&] { show_sentence(lesson, in.seq, in.W, c); });
        lesson.step("causal-mask", "The causal mask: a token may not look ahead",
                    [&] { show_causal_mask(lesson, tokens, c); });
        lesson.step("masked-scores", "Hidden keys get a score of −inf", [&] { show_masked_scores(lesson, tokens, c); });
        lesson.step("weights", "Softmax: hidden keys get a weight of exactly 0",
                    [&] { show_weights(lesson, tokens, in.W, c); });
        lesson.step("other-way",
                    fmt::format("The other way: softmax first, then forget the future (query \"{}\")", tokens[q]),
                    [&] { show_other_way(lesson, tokens, q, c); });
        lesson.step("padding", "The padding mask: a batch of two sentences",
                    [&] { show_padding(lesson, in.short_seq.tokens, in.W, p); });
        lesson.step("empty-rows", "A row with every key hidden",
                    [&] { show_empty_rows(lesson, in.short_seq.tokens, in.W, l); });
        lesson.step("checks", "Self-checks", [&] { check(lesson.checks(), c, p, l, rows(in.short_seq.X)); });
        lesson.present();
    });
}
