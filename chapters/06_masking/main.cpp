// Chapter 06 · Masking: what a token may not see
//
// The lesson: the masks of math.cpp, shown step by step (the causal mask, the
// −inf scores, the weights, the other way of masking, the padding mask of a
// batch, a row with nothing to see), then checked (checks.cpp) against what they
// must be, computed another way (the reference loops in double, the sentence
// without its pads).
//
// Two kinds of model hide keys: a decoder (GPT) may not look ahead, and a batch
// of sentences padded to one length must not look at the pads.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/06_masking/checks.hpp"
#include "chapters/06_masking/inputs.hpp"
#include "chapters/06_masking/math.hpp"
#include "common/display/text_table.hpp"
#include "common/inputs/sequence.hpp"
#include "common/lesson/lesson.hpp"
#include "common/numbers/float32_range.hpp"

namespace {

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
        table.push_back({tokens[j], format_number(c.unmasked(q, j), 3), c.mask(q, j) != 0.0f ? "yes" : "no",
                         format_number(c.renormalised(q, j), 3), format_number(c.steps.weights(q, j), 3)});
    }
    lesson.table({"key", "softmax over all", "visible", "÷ what is left", "−inf way"}, table);
    const bool sound = c.kept[q] >= std::numeric_limits<float>::min();
    lesson.say(
        fmt::format("The visible keys kept {} of the weight; {}.\n"
                    "The −inf way is the one models use: one softmax, and no division by a sum\n"
                    "that can underflow to 0 when a hidden key has a much larger score.",
                    format_number(c.kept[q], 3),
                    sound ? "dividing by it gives the −inf weights" : "there is nothing to divide by"));
    if (c.broken_rows.empty()) return;
    const std::size_t b = c.broken_rows.front();
    const double lead = c.broken_lead;
    lesson.say(fmt::format(
        "With these scores it does underflow. For {} of the {} queries (the first: \"{}\") a\n"
        "hidden key scores {:.3g} more than every visible key, so the visible keys keep\n"
        "about exp(−{:.3g}) of the weight. In float32 that is\n{}\n"
        "The self-check compares the two ways only on the other {} rows.",
        c.broken_rows.size(), tokens.size(), tokens[b], lead, lead, what_was_kept(c.kept[b]), c.sound_rows.size()));
}

// Step padding: a batch of two sentences, the short one padded on the right.
void show_padding(Lesson& lesson, std::size_t short_n, const Padded& p) {
    const std::size_t length = cols(p.padding);
    lesson.say(fmt::format("A batch is one tensor, so its sentences must have one length.\n"
                           "\"{}\" ({} tokens) is padded to {} with {} tokens whose\n"
                           "embedding is 0. The padding mask has one row per sentence: 1 for a real\n"
                           "token, 0 for a pad.",
                           short_sentence, short_n, length, length - short_n, pad_token));
    lesson.show(p.padding, Style().decimals(0).svg());
    lesson.say(
        "Sentence 0 fills the batch: its row is all ones and its attention is the\n"
        "plain one. Sentence 1's row hides the pad keys from every query:");
    lesson.show(p.batch.masked_scores, Style().decimals(2));
    lesson.show(p.batch.weights, Style().svg());
    lesson.show(p.batch.output);
    lesson.say(
        fmt::format("The pad columns are 0, so the {} real tokens get exactly the output they get\n"
                    "alone, without the pads. Without the mask, a pad's key is 0, its score 0, and\n"
                    "each real token would give the pads {} of its weight (\"forum\": {}).\n"
                    "\n"
                    "The pad rows are queries too. A pad's query is 0, so it scores every real key\n"
                    "0 and spreads its weight evenly over them. Its output is a meaningless row,\n"
                    "and that does not matter: nothing reads it. The loss skips pad positions, and\n"
                    "in every later layer the pads are hidden again as keys.",
                    short_n, format_number(p.pad_share[0], 2), format_number(p.pad_share[1], 2)));
}

// Step empty-rows: left padding and the causal mask leave the pads nothing to see.
void show_empty_rows(Lesson& lesson, const LeftPadded& l) {
    lesson.say("A decoder's batch is padded on the left, so that every sentence ends where\n"
               "the next token is written. Combine the causal mask with the padding mask\n"
               "(multiply them): the pads at the start see only keys at or before them, which\n"
               "are pads. Their rows hide every key.");
    lesson.show(l.mask, Style().decimals(0).svg());
    lesson.show(l.generation.masked_scores, Style().decimals(2));
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
    lesson.show(l.generation.weights, Style().svg());
    lesson.show(l.generation.output);
}

// Step weights: the softmax of the masked scores, and the output.
void show_weights(Lesson& lesson, const Labels& tokens, const Causal& c) {
    const std::size_t it = index_of(tokens, "it"), animal = index_of(tokens, "animal");
    lesson.say("exp(−inf) = 0, so each hidden key's weight is exactly 0, and the softmax\n"
               "shares the whole weight of 1 among the visible keys. The first token sees\n"
               "only itself: its weight on itself is 1.");
    lesson.show(c.steps.weights, Style().svg());
    lesson.show(c.steps.output);
    if (it < tokens.size() && animal < it)
        lesson.say(
            fmt::format("\"it\" still finds \"animal\" ({}): the word it stands for came before it.\n"
                        "Hiding the future costs \"it\" nothing here.",
                        format_number(c.steps.weights(it, animal), 2)));
}

// The matrices by name, for --dump, --html and the labels of their rows and columns.
void list_matrices(Lesson& lesson, const Inputs& in, const Causal& c, const Padded& p, const LeftPadded& l) {
    lesson.labels({{"tokens", in.seq.tokens}, {"dimensions", in.seq.dimensions}, {"query slots", in.W_Q.columns},
                   {"key slots", in.W_K.columns}, {"value slots", in.W_V.columns},
                   {"sentences", {"sentence0", "sentence1"}}, {"padded tokens", in.padded_tokens},
                   {"left tokens", in.left_tokens}});
    lesson.list(in.seq.matrices());
    lesson.list(in.W.matrices());
    lesson.list(c.matrices());
    lesson.list(p.matrices());
    lesson.list(l.matrices());
}

// Step causal-mask: the lower triangle, and why a decoder needs it.
void show_causal_mask(Lesson& lesson, const Causal& c) {
    lesson.say("A decoder writes a sentence one token at a time. While it trains, every\n"
               "position predicts the next token in parallel, so position i must not see\n"
               "the tokens after it: they are the answer. mask(i, j) = 1 when key j may be\n"
               "seen by query i (j ≤ i), 0 when it is hidden: a lower triangle.");
    lesson.show(c.mask, Style().decimals(0).svg());
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson;  // named and titled by chapter.toml
    const std::string& input = lesson.add_input_option(
        "\"" + default_sentence + "\" (for the causal mask; the batch examples keep their sentences)");
    refuse_text(lesson, "its W_Q, W_K, W_V fit data/embeddings.csv only; chapter 05 takes it");

    return lesson.run(argc, argv, [&] {
        const Inputs in = load_inputs(input);
        const Causal c = causal_attention(in.seq.X, in.W);
        const Padded p = padded_batch(in.short_seq.X, in.long_n, in.W);
        const LeftPadded l = left_padded(in.short_seq.X, in.left_pads, in.W);
        const Labels& tokens = in.seq.tokens;
        const std::size_t short_n = rows(in.short_seq.X), it = index_of(tokens, "it");
        const std::size_t q = it < tokens.size() ? it : tokens.size() / 2;  // the query of the other-way step
        list_matrices(lesson, in, c, p, l);

        lesson.step("sentence", "The sentence, its queries, keys and values", [&] {
            lesson.say("As in chapter 05: the embeddings X times the hand-made projections of\n"
                       "data/projections/ give each token a query, a key and a value (d_k = 4).");
            lesson.show(in.seq.X, Style().decimals(1));
            for (const Matrix* m : {&c.p.Q, &c.p.K, &c.p.V}) lesson.show(*m, Style().decimals(2));
        });
        lesson.step("causal-mask", "The causal mask: a token may not look ahead", [&] { show_causal_mask(lesson, c); });
        lesson.step("masked-scores", "Hidden keys get a score of −inf", [&] {
            lesson.say("The scores are computed for every pair as before (one matrix product is\n"
                       "cheaper than skipping half of it); then every hidden score is replaced by −inf.");
            lesson.show(c.steps.masked_scores, Style().decimals(2));
        });
        lesson.step("weights", "Softmax: hidden keys get a weight of exactly 0",
                    [&] { show_weights(lesson, tokens, c); });
        lesson.step("other-way",
                    fmt::format("The other way: softmax first, then forget the future (query \"{}\")", tokens[q]),
                    [&] { show_other_way(lesson, tokens, q, c); });
        lesson.step("padding", "The padding mask: a batch of two sentences", [&] { show_padding(lesson, short_n, p); });
        lesson.step("empty-rows", "A row with every key hidden", [&] { show_empty_rows(lesson, l); });
        lesson.step("checks", "Self-checks", [&] { check_masking(lesson.checks(), c, p, l, short_n); });
        lesson.present();
    });
}
