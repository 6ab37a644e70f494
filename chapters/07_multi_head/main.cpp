// Chapter 07 · Multi-head attention
//
// The lesson: the heads of math.cpp shown one by one, side by side, glued and
// mixed by W_O, then the same layer as one split matrix, its real sizes and its
// cost; checked against the definition written out as loops in double.
//
// The numbers of X and of the weights are random (seeded, the same on every
// machine): the flags change every shape, so no hand-made file could serve, and
// a real model's heads also start from random weights. What this chapter shows
// is the bookkeeping: the slices, the reshapes, the sizes and the cost.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/07_multi_head/math.hpp"
#include "common/lesson/lesson.hpp"
#include "common/lesson/sequence.hpp"
#include "common/lesson/text_table.hpp"
#include "common/lesson/text_width.hpp"
#include "common/math/attention_parameters.hpp"
#include "common/math/input_error.hpp"
#include "common/math/transformer_block.hpp"

namespace {

const std::string default_sentence = "the cat sat on the mat";

// "h0:0", "h0:1", …, "h1:0", …: which head a column of W_Q (or a row of W_O) belongs to.
Labels head_labels(std::size_t h, std::size_t d_k) {
    Labels labels;
    for (std::size_t i = 0; i < h; ++i)
        for (std::size_t c = 0; c < d_k; ++c) labels.push_back(fmt::format("h{}:{}", i, c));
    return labels;
}

// True when every row of m equals the first: then every key is the same, and
// every head gives every key the same weight.
bool all_rows_equal(const Matrix& m) {
    for (std::size_t r = 1; r < rows(m); ++r)
        for (std::size_t c = 0; c < cols(m); ++c)
            if (m(r, c) != m(0, c)) return false;
    return true;
}

// The sequence: the default sentence with random embeddings, or --input.
Sequence the_sequence(Lesson& lesson, const std::string& input, std::size_t d_model, std::size_t h, Random& random) {
    Sequence seq = random_or_input_sequence(input, default_sentence, d_model,
                                            lesson.cli().count("--d-model") > 0, random);
    if (cols(seq.X) % h != 0)
        throw InputError(
            input.empty()
                ? fmt::format("--d-model {} is not divisible by --heads {}: each head gets d_model / h columns, "
                              "so h must divide d_model",
                              cols(seq.X), h)
                : fmt::format("--heads {}: the width of --input {} ({}) is not divisible by {}: each head gets "
                              "d_model / h columns, so h must divide d_model",
                              h, input, cols(seq.X), h));
    return seq;
}

// Step: each head on its own slice: its Q_i, K_i, V_i and output.
void show_heads(Lesson& lesson, const Labels& tokens, const Labels& by_head, const MultiHeadLesson& r) {
    lesson.say(
        "Each head is the attention of chapter 05 with its own, narrower W_Q_i, W_K_i,\n"
        "W_V_i. A column slice of a row-major matrix is not contiguous, so each slice\n"
        "is copied before it goes to BLAS.");
    for (std::size_t i = 0; i < r.h; ++i) {
        const OneHead& one = r.heads[i];
        const Labels slice(by_head.begin() + static_cast<long>(i * r.d_k),
                           by_head.begin() + static_cast<long>((i + 1) * r.d_k));
        const std::string cols_text = fmt::format("[:, {}:{}]", i * r.d_k, (i + 1) * r.d_k);
        lesson.show(fmt::format("head{}_Q", i), one.Q, ShowAs("X · W_Q" + cols_text).labels(tokens, slice).decimals(2));
        lesson.show(fmt::format("head{}_K", i), one.K, ShowAs("X · W_K" + cols_text).labels(tokens, slice).decimals(2));
        lesson.show(fmt::format("head{}_V", i), one.V, ShowAs("X · W_V" + cols_text).labels(tokens, slice).decimals(2));
        lesson.show(fmt::format("head{}_output", i), one.output,
                    ShowAs(fmt::format("head{}_weights · V_{}", i, i)).labels(tokens, slice));
    }
}

// Step: every head's weights side by side, and where each query looks most in each head.
void show_side_by_side(Lesson& lesson, const Labels& tokens, const MultiHeadLesson& r) {
    lesson.say(fmt::format(
        "head{{i}}_weights = softmax(Q_i · K_iᵀ / √{}). Same tokens, different slices of\n"
        "the weights: each head spreads its attention its own way.",
        r.d_k));
    std::vector<Lesson::Shown> weights;
    for (std::size_t i = 0; i < r.h; ++i)
        weights.push_back({fmt::format("head{}_weights", i), r.heads[i].weights,  // the formula is said above
                           ShowAs().labels(tokens, tokens).heat_map()});
    lesson.show_side_by_side(weights);
    std::vector<TextRow> favourites;
    TextRow header{"query"};
    for (std::size_t i = 0; i < r.h; ++i) header.push_back(fmt::format("head {} looks most at", i));
    for (std::size_t q = 0; q < tokens.size(); ++q) {  // a long --input: the table shows the first and last
        TextRow row{tokens[q]};
        for (const OneHead& one : r.heads) {
            const std::size_t best = argmax_of_row(one.weights, q);
            row.push_back(fmt::format("{} ({:.2f})", tokens[best], one.weights(q, best)));
        }
        favourites.push_back(row);
    }
    lesson.table(header, favourites);
}

// Step: the sizes of the projections, in this chapter and in two real models.
void show_sizes(Lesson& lesson, std::size_t d_model, std::size_t h, const MultiHeadWeights& W) {
    using B = AttentionBiases;
    const std::uint64_t ours = W.W_Q.size() + W.W_K.size() + W.W_V.size() + W.W_O.size();
    const std::size_t pw = grouped(attention_parameters(768, B::with_biases)).size();
    const auto model_row = [&](const std::string& name, std::size_t d, std::size_t heads, bool biases,
                               std::uint64_t count) {
        return TextRow{name,
                       std::to_string(d),
                       std::to_string(heads),
                       std::to_string(d / heads),
                       fmt::format("({} × {})", d, d / heads),
                       fmt::format("4 · ({} × {})", d, d),
                       biases ? fmt::format("4 · {}", d) : "none",
                       grouped(count, pw)};
    };
    lesson.table({"model", "d_model", "h", "d_k", "W_Q_i per head", "W_Q, W_K, W_V, W_O", "biases", "parameters"},
                 {model_row("this chapter", d_model, h, false, ours),
                  model_row("Transformer Base", 512, 8, false, attention_parameters(512, B::none)),
                  model_row("GPT-2 small", 768, 12, true, attention_parameters(768, B::with_biases))});
}

void print_cost_table(Lesson& lesson, std::size_t n, std::size_t d_model, std::size_t h) {
    const Cost one = multi_head_cost(n, d_model, 1), many = multi_head_cost(n, d_model, h);
    const std::string one_head = fmt::format("1 head, d_k = {}", d_model);
    const std::string h_heads = fmt::format("{} heads, d_k = {}", h, d_model / h);
    const std::size_t w1 = std::max(display_width(one_head), grouped(one.total()).size());
    const std::size_t w2 = std::max(display_width(h_heads), grouped(many.total()).size());
    const auto row = [&](const std::string& piece, const std::string& formula, std::uint64_t a, std::uint64_t b) {
        return TextRow{piece, formula, grouped(a, w1), grouped(b, w2)};
    };
    lesson.say(fmt::format(
        "n = {}, d_model = {}:\n{}", n, d_model,
        format_table({"product", "multiply-adds", one_head, h_heads},
                     {row("X · W_Q, X · W_K, X · W_V", "3 · h · n · d_model · d_k", one.projections, many.projections),
                      row("Q_i · K_iᵀ", "h · n · d_k · n", one.scores, many.scores),
                      row("weights_i · V_i", "h · n · n · d_v", one.mix, many.mix),
                      row("concat · W_O", "n · h·d_v · d_model", one.output, many.output),
                      row("total", "4·n·d_model² + 2·n²·d_model", one.total(), many.total())})));
}

// The claim that the heads differ: the two most alike heads still place some weight differently.
void check_heads_differ(SelfChecks& check, const Matrix& X, const MultiHeadLesson& r) {
    // How differently two heads attend, measured as a share of a query's weight
    // (it does not shrink as a longer row spreads its weight thinner); the
    // claim is about the two most alike heads, so twins anywhere show.
    const std::string claim = "the heads attend differently";
    if (all_rows_equal(X))
        return check.skip(claim, rows(X) == 1 ? "one token: every weight is 1"
                                              : "every token has the same embedding: every weight is 1/n");
    if (r.by_loops.score_spread < 0.1)  // e^0.1 ≈ 1.1: no weight is far from 1/n, in any head
        return check.skip(claim, fmt::format("every scaled score is within {:.0e} of its row's others: every "
                                             "weight is near 1/n",
                                             r.by_loops.score_spread));
    std::size_t a = 0, b = 1;
    double least = weight_moved(r.heads[0].weights, r.heads[1].weights);
    for (std::size_t i = 0; i < r.h; ++i)
        for (std::size_t j = i + 1; j < r.h; ++j)
            if (const double moved = weight_moved(r.heads[i].weights, r.heads[j].weights); moved < least)
                least = moved, a = i, b = j;
    check.that(r.h == 2 ? fmt::format("{} (they place up to {:.2f} of a query's weight differently)", claim, least)
                        : fmt::format("{} (the two most alike, heads {} and {}, place up to {:.2f} of a "
                                      "query's weight differently)",
                                      claim, a, b, least),
               least > 0.05);
}

// Each claim against something computed another way: the split matrix
// (split_into_heads, concat_heads), and the definition as loops in double (math.cpp), which
// shares nothing with the attention of common/math, so a wrong scaling there shows.
void check(SelfChecks& check, const Matrix& X, const MultiHeadLesson& r) {
    const std::size_t n = rows(X), h = r.h;
    // The outputs grow with the inputs (values of 1e6 give outputs of 1e6), and so
    // does float32 rounding: these tolerances are relative to the outputs' size.
    check.close("the loop over heads equals the split matrix: concat", max_abs_difference(r.concat, r.split.concat),
                scaled_tolerance(1e-4, r.split.concat));
    check.close("the loop over heads equals the split matrix: output", max_abs_difference(r.output, r.split.output),
                scaled_tolerance(1e-4, r.split.output));
    double split_error = 0.0, loops_error = 0.0, row_sum_error = 0.0;
    for (std::size_t i = 0; i < h; ++i) {
        split_error = std::max(split_error, max_abs_difference(r.heads[i].weights, head(r.split.weights, i)));
        loops_error = std::max(loops_error, max_abs_difference(r.heads[i].weights, r.by_loops.weights[i]));
        row_sum_error = std::max(row_sum_error, worst_row_sum_error(r.heads[i].weights));
    }
    check.close("every head's weights: loop = split matrix", split_error, 1e-5);
    // A float32 score is off by about (d_model + d_k) roundings of the size its terms
    // have (score_size); a weight moves by less than its score does.
    const double weights_tolerance =
        std::max(1e-5, double(cols(X) + r.d_k) * FLT_EPSILON * r.by_loops.score_size);
    check.close("every head's weights = softmax(q·k_j/√d_k) as loops in double", loops_error, weights_tolerance);
    check.close("output = Σ_j w_j v_j of every head, · W_O, as loops in double",
                max_abs_difference(r.output, r.by_loops.output),
                scaled_tolerance(1e-4, r.by_loops.output) + weights_tolerance * double(n) * r.by_loops.value_size);
    check.close("every row of every head's weights sums to 1", row_sum_error, row_sum_tolerance(n));
    // concat · W_O = Σ_i head_i · W_O[i·d_v : (i+1)·d_v, :]: W_O adds up what each head found.
    check.close("output = Σ_i head_i · (head i's rows of W_O)", max_abs_difference(r.summed, r.output),
                scaled_tolerance(1e-4, r.output));
    if (h > 1) check_heads_differ(check, X, r);
    using B = AttentionBiases;
    check.that("GPT-2 small: c_attn 768·2304 + 2304 + c_proj 768·768 + 768 = 2 362 368",
               768 * 2304 + 2304 + 768 * 768 + 768 == 2362368 && attention_parameters(768, B::with_biases) == 2362368);
    check.that("Transformer Base: attention 4 · 512² = 1 048 576 (no biases), as chapter 12 counts it",
               attention_parameters(512, B::none) == 1048576 &&
                   count_block_parameters(512, 2048, B::none).attention == 1048576);
    const std::size_t d_model = cols(X);
    const Cost one = multi_head_cost(n, d_model, 1), many = multi_head_cost(n, d_model, h);
    const std::uint64_t closed_form = 4 * std::uint64_t{n} * d_model * d_model + 2 * std::uint64_t{n} * n * d_model;
    check.that(fmt::format("{} heads cost the multiply-adds of 1 head: {} = {} = 4·n·d_model² + 2·n²·d_model", h,
                           grouped(many.total()), grouped(one.total())),
               many.total() == one.total() && one.total() == closed_form);
}

// What every step shows: the sequence, the weights and what math.cpp computed.
struct Shown {
    Lesson& lesson;
    const Sequence& seq;
    const MultiHeadWeights& W;
    const MultiHeadLesson& r;
    const Labels by_head;  // "h0:0", …: the heads' columns
    const std::string& input;
};

// Step: the sequence.
void show_sequence(const Shown& s) {
    const std::size_t n = rows(s.seq.X), d_model = cols(s.seq.X);
    s.lesson.say(fmt::format("{} tokens of width d_model = {}, split into h = {} heads of d_k = d_model / h = {}.\n{}",
                             n, d_model, s.r.h, s.r.d_k,
                             s.input.empty() ? "The embeddings are random (seeded): a repeated word has the same row."
                                             : "The embeddings are the rows of " + s.input + "."));
    s.lesson.show("X", s.seq.X, ShowAs().labels(s.seq.tokens, s.seq.dimensions).decimals(2));
}

// Step: the four projections, their columns labelled by head.
void show_weights(const Shown& s) {
    s.lesson.say(fmt::format(
        "W_Q, W_K and W_V are (d_model × h·d_k) = ({} × {}). Head i owns the columns\n"
        "[i·d_k, (i+1)·d_k); the column labels say which head (h1:2 is head 1's\n"
        "third column). W_O is (h·d_v × d_model): head i's output meets its rows.",
        cols(s.seq.X), s.r.h * s.r.d_k));
    s.lesson.show("W_Q", s.W.W_Q, ShowAs().labels(s.seq.dimensions, s.by_head).decimals(2));
    s.lesson.show("W_K", s.W.W_K, ShowAs().labels(s.seq.dimensions, s.by_head).decimals(2));
    s.lesson.show("W_V", s.W.W_V, ShowAs().labels(s.seq.dimensions, s.by_head).decimals(2));
    s.lesson.show("W_O", s.W.W_O, ShowAs().labels(s.by_head, s.seq.dimensions).decimals(2));
}

// Step: concat and output.
void show_concat(const Shown& s) {
    const std::size_t h = s.r.h;
    s.lesson.say(fmt::format(
        "The heads' outputs side by side make one (n × h·d_v) = ({} × {}) matrix. Each\n"
        "head only saw its own slice; W_O mixes what they found back into d_model = {}\n"
        "dimensions, the width the next layer expects.",
        rows(s.seq.X), h * s.r.d_k, cols(s.seq.X)));
    const std::string pieces = h == 1   ? "head0_output"
                               : h == 2 ? "[head0_output, head1_output]"
                                        : fmt::format("[head0_output, …, head{}_output]", h - 1);
    s.lesson.show("concat", s.r.concat, ShowAs(pieces).labels(s.seq.tokens, s.by_head));
    s.lesson.show("output", s.r.output, ShowAs("concat · W_O").labels(s.seq.tokens, s.seq.dimensions));
}

// Step: one projection, then split_into_heads.
void show_split(const Shown& s) {
    const std::size_t n = rows(s.seq.X), d_model = cols(s.seq.X), h = s.r.h, d_k = s.r.d_k;
    s.lesson.say(fmt::format(
        "Real code does not loop over weight slices. It projects once, Q = X · W_Q,\n"
        "whose column blocks are exactly the heads' Q_i (X · W_Q[:, a:b] = (X · W_Q)[:, a:b]),\n"
        "then reshapes ({} × {}) → ({} × {} × {}) and swaps the first two axes → ({} × {} × {}),\n"
        "one (n × d_k) block per head, as PyTorch's q.view(n, h, d_k).transpose(0, 1).\n"
        "That is a strided view of Q's memory: nothing moves, and a head's block is not\n"
        "contiguous until .contiguous() copies it; split_into_heads copies every block.\n"
        "Attention runs on every block; the blocks are swapped and reshaped back\n"
        "to (n × h·d_v), which is concat.",
        n, d_model, n, h, d_k, h, n, d_k));
    s.lesson.show("Q", s.r.Q, ShowAs("X · W_Q").labels(s.seq.tokens, s.by_head).decimals(2));
    s.lesson.say(fmt::format("split_into_heads(Q): ({} × {} × {});  block 0 = head0_Q, …, block {} = head{}_Q",
                             s.r.Q_split.shape(0), s.r.Q_split.shape(1), s.r.Q_split.shape(2), h - 1, h - 1));
}

// Step: the real sizes.
void show_real_sizes(const Shown& s) {
    s.lesson.say(
        "Every head has d_k = d_model / h, so the four projections are (d_model × d_model)\n"
        "whatever h is. GPT-2 adds a bias to each projection (in its checkpoint: c_attn\n"
        "(768 × 2304) holds W_Q, W_K, W_V side by side, c_proj (768 × 768) is W_O).");
    show_sizes(s.lesson, cols(s.seq.X), s.r.h, s.W);
    s.lesson.say(
        "The parameters are computed from the shapes, 4·d_model² (+ 4·d_model biases).\n"
        "The Transformer paper writes its attention without biases, and publishes only\n"
        "whole-model sizes: 65 M parameters for Transformer Base (its Table 3).");
}

// Step: the cost tables, for this chapter's sizes and for the Transformer Base.
void show_cost(const Shown& s) {
    s.lesson.say(
        "h heads of width d_model / h make h times as many products, each h times\n"
        "narrower: the multiply-adds are the same as for one head of width d_model.\n"
        "Only the softmax grows: h · n² exponentials instead of n².");
    print_cost_table(s.lesson, rows(s.seq.X), cols(s.seq.X), s.r.h);
    print_cost_table(s.lesson, 512, 512, 8);
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch07_multi_head", "Chapter 07 · Multi-head attention");
    const std::string& input = lesson.add_input_option(
        "\"" + default_sentence + "\" with random embeddings of width --d-model; with --input, d_model is the file's width");
    std::size_t h = 2, d_model_flag = 8;
    std::uint64_t seed = 6;
    lesson.cli().add_option("--heads", h, "h, the number of heads (1 to 64); must divide d_model")
        ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{64}).description(""));
    lesson.cli().add_option("--d-model", d_model_flag, "d_model, the width of the embeddings (1 to 512; without --input)")
        ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{512}).description(""));
    lesson.cli().add_option("--seed", seed, "seed of the random embeddings and weights")
        ->capture_default_str();

    return lesson.run(argc, argv, [&] {
        Random random(seed);
        const Sequence seq = the_sequence(lesson, input, d_model_flag, h, random);
        const MultiHeadWeights W = random_weights(cols(seq.X), h, random);
        const MultiHeadLesson r = multi_head_lesson(seq.X, W, h);
        const Shown s{lesson, seq, W, r, head_labels(h, r.d_k), input};
        lesson.step("sequence", "The sequence", [&] { show_sequence(s); });
        lesson.step("weights", "The weights: each head owns a block of columns", [&] { show_weights(s); });
        lesson.step("head-by-head", "Head by head: attention on each slice",
                    [&] { show_heads(lesson, seq.tokens, s.by_head, r); });
        lesson.step("side-by-side", "The heads' weights side by side",
                    [&] { show_side_by_side(lesson, seq.tokens, r); });
        lesson.step("concat", "Concatenate the heads, then mix them with W_O", [&] { show_concat(s); });
        lesson.step("split-matrix", "The same with one matrix: project once, then reshape", [&] { show_split(s); });
        lesson.step("sizes", "The real sizes", [&] { show_real_sizes(s); });
        lesson.step("cost", "What h heads cost: the same as one", [&] { show_cost(s); });
        lesson.step("checks", "Self-checks", [&] { check(lesson.checks(), seq.X, r); });
        lesson.present();
    });
}
