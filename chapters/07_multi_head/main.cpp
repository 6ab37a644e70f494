// Chapter 07 · Multi-head attention
//
// The lesson: the heads of math.cpp shown one by one, side by side, glued and
// mixed by W_O, then the same layer as one split matrix, its real sizes and its
// cost; checked (checks.cpp) against the definition written out as loops in double.
//
// The numbers of X and of the weights are random (seeded, the same on every
// machine): the flags change every shape, so no hand-made file could serve, and
// a real model's heads also start from random weights. What this chapter shows
// is the bookkeeping: the slices, the reshapes, the sizes and the cost.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/07_multi_head/checks.hpp"
#include "chapters/07_multi_head/inputs.hpp"
#include "chapters/07_multi_head/math.hpp"
#include "common/block/attention_parameters.hpp"
#include "common/display/text_table.hpp"
#include "common/display/text_width.hpp"
#include "common/language_model/sentence_option.hpp"
#include "common/lesson/lesson.hpp"

namespace {

// "h0:0", "h0:1", …, "h1:0", …: which head a column of W_Q (or a row of W_O) belongs to.
Labels head_labels(std::size_t h, std::size_t d_k) {
    Labels labels;
    for (std::size_t i = 0; i < h; ++i)
        for (std::size_t c = 0; c < d_k; ++c) labels.push_back(fmt::format("h{}:{}", i, c));
    return labels;
}

// Step: each head on its own slice: its Q_i, K_i, V_i and output.
void show_heads(Lesson& lesson, const MultiHeadForms& r) {
    lesson.say(
        "Each head is the attention of chapter 05 with its own, narrower W_Q_i, W_K_i,\n"
        "W_V_i. A column slice of a row-major matrix is not contiguous, so each slice\n"
        "is copied before it goes to BLAS.");
    for (const OneHead& head : r.heads) {
        for (const Matrix* m : {&head.Q, &head.K, &head.V}) lesson.show(*m, Style().decimals(2));
        lesson.show(head.output);
    }
}

// Step: every head's weights side by side, and where each query looks most in each head.
void show_side_by_side(Lesson& lesson, const Labels& tokens, const MultiHeadForms& r) {
    lesson.say(fmt::format(
        "head{{i}}_weights = softmax(Q_i · K_iᵀ / √{}). Same tokens, different slices of\n"
        "the weights: each head spreads its attention its own way.",
        r.d_k));
    std::vector<Lesson::SideBySide> weights;
    for (const OneHead& head : r.heads) weights.push_back({head.weights, Style().svg()});
    lesson.show_side_by_side(weights);
    std::vector<TextRow> favourites;
    TextRow header{"query"};
    for (std::size_t i = 0; i < r.h; ++i) header.push_back(fmt::format("head {} looks most at", i));
    for (std::size_t q = 0; q < tokens.size(); ++q) {  // a long --input: the table shows the first and last
        TextRow row{tokens[q]};
        for (const OneHead& one : r.heads) {
            const std::size_t best = one.favourite[q];
            row.push_back(fmt::format("{} ({})", tokens[best], format_number(one.weights(q, best), 2)));
        }
        favourites.push_back(row);
    }
    lesson.table(header, favourites);
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

// Step: the sequence.
void show_sequence(Lesson& lesson, const Sequence& seq, const MultiHeadForms& r, const SequenceSource& input,
                   const Flags& flags, bool learned) {
    const std::string where =
        learned ? fmt::format("The rows are ln_1 of the token embeddings that chapter 22's model learned, with\n"
                              "layer {}'s γ and β: what that layer's attention reads is ln_1(x), and here x is\n"
                              "the embeddings alone (no positions, no earlier layers).",
                              flags.layer)
                : input.embeddings_said();
    lesson.say(fmt::format("{} tokens of width d_model = {}, split into h = {} heads of d_k = d_model / h = {}.\n{}",
                           rows(seq.X), cols(seq.X), r.h, r.d_k, where));
    lesson.show(seq.X, Style().decimals(2));
}

// Step: the four projections, their columns labelled by head.
void show_weights(Lesson& lesson, const MultiHeadForms& r, const MultiHeadWeights& W, const Flags& flags,
                  bool learned) {
    lesson.say(fmt::format(
        "W_Q, W_K and W_V are (d_model × h·d_k) = ({} × {}). Head i owns the columns\n"
        "[i·d_k, (i+1)·d_k); the column labels say which head (h1:2 is head 1's\n"
        "third column). W_O is (h·d_v × d_model): head i's output meets its rows.",
        r.d_model, r.h * r.d_k));
    if (learned)
        lesson.say(fmt::format(
            "These are layer {}'s learned weights. The model keeps them as PyTorch does, (out × in):\n"
            "its fused c_attn (3·d_model × d_model) holds W_Qᵀ in rows 0 … {}, W_Kᵀ in the next\n"
            "{} and W_Vᵀ in the last {}; W_O is its c_projᵀ. Head i's slice is the same columns\n"
            "[i·d_k, (i+1)·d_k) as nanoGPT splits them. The model also adds biases; they are\n"
            "left out here, so that Q = X · W_Q exactly.",
            flags.layer, r.d_model - 1, r.d_model, r.d_model));
    for (const Matrix* m : {&W.W_Q, &W.W_K, &W.W_V, &W.W_O}) lesson.show(*m, Style().decimals(2));
}

// Step: concat and output.
void show_concat(Lesson& lesson, const MultiHeadForms& r) {
    lesson.say(fmt::format(
        "The heads' outputs side by side make one (n × h·d_v) = ({} × {}) matrix. Each\n"
        "head only saw its own slice; W_O mixes what they found back into d_model = {}\n"
        "dimensions, the width the next layer expects.",
        r.n, r.h * r.d_k, r.d_model));
    lesson.show(r.concat);
    lesson.show(r.output);
}

// Step: one projection, then split_into_heads.
void show_split(Lesson& lesson, const MultiHeadForms& r) {
    const std::size_t n = r.n, d_model = r.d_model, h = r.h, d_k = r.d_k;
    lesson.say(fmt::format(
        "Real code does not loop over weight slices. It projects once, Q = X · W_Q,\n"
        "whose column blocks are exactly the heads' Q_i (X · W_Q[:, a:b] = (X · W_Q)[:, a:b]),\n"
        "then reshapes ({} × {}) → ({} × {} × {}) and swaps the first two axes → ({} × {} × {}),\n"
        "one (n × d_k) block per head, as PyTorch's q.view(n, h, d_k).transpose(0, 1).\n"
        "That is a strided view of Q's memory: nothing moves, and a head's block is not\n"
        "contiguous until .contiguous() copies it; split_into_heads copies every block.\n"
        "Attention runs on every block; the blocks are swapped and reshaped back\n"
        "to (n × h·d_v), which is concat.",
        n, d_model, n, h, d_k, h, n, d_k));
    lesson.show(r.Q, Style().decimals(2));
    lesson.say(fmt::format("split_into_heads(Q): ({} × {} × {});  block 0 = head0_Q, …, block {} = head{}_Q",
                           r.Q_split.shape(0), r.Q_split.shape(1), r.Q_split.shape(2), h - 1, h - 1));
}

// Step: the sizes of the projections, in this chapter and in two real models.
void show_real_sizes(Lesson& lesson, std::size_t d_model, std::size_t h, const MultiHeadWeights& W) {
    using B = AttentionBiases;
    lesson.say(
        "Every head has d_k = d_model / h, so the four projections are (d_model × d_model)\n"
        "whatever h is. GPT-2 adds a bias to each projection (in its checkpoint: c_attn\n"
        "(768 × 2304) holds W_Q, W_K, W_V side by side, c_proj (768 × 768) is W_O).");
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
                 {model_row("this chapter", d_model, h, false, W.parameters()),
                  model_row("Transformer Base", 512, 8, false, attention_parameters(512, B::none)),
                  model_row("GPT-2 small", 768, 12, true, attention_parameters(768, B::with_biases))});
    lesson.say(
        "The parameters are computed from the shapes, 4·d_model² (+ 4·d_model biases).\n"
        "The Transformer paper writes its attention without biases, and publishes only\n"
        "whole-model sizes: 65 M parameters for Transformer Base (its Table 3).");
}

// Step: the cost tables, for this chapter's sizes and for the Transformer Base.
void show_cost(Lesson& lesson, std::size_t n, std::size_t d_model, std::size_t h) {
    lesson.say(
        "h heads of width d_model / h make h times as many products, each h times\n"
        "narrower: the multiply-adds are the same as for one head of width d_model.\n"
        "Only the softmax grows: h · n² exponentials instead of n².");
    print_cost_table(lesson, n, d_model, h);
    print_cost_table(lesson, 512, 512, 8);
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson;  // named and titled by chapter.toml
    const SequenceSource& input = add_sentence_options(lesson, 
        "\"" + default_sentence + "\" with random embeddings of width --d-model; with --input, d_model is the file's width");
    Flags flags;
    add_flags(lesson, flags);

    return lesson.run(argc, argv, [&] {
        const Inputs in =
            the_inputs(input, flags, {lesson.given("--d-model"), lesson.given("--heads"), lesson.given("--layer")});
        const Sequence& seq = in.seq;
        const MultiHeadWeights& W = in.W;
        const MultiHeadForms r = multi_head_forms(seq.X, W, in.h);
        const Labels by_head = head_labels(r.h, r.d_k);  // "h0:0", …: the heads' columns
        lesson.labels({{"tokens", seq.tokens}, {"dimensions", seq.dimensions}, {"head columns", by_head}});
        for (std::size_t i = 0; i < r.h; ++i)  // head i's slice of them
            lesson.labels(fmt::format("head{} columns", i), Labels(by_head.begin() + long(i * r.d_k),
                                                                   by_head.begin() + long((i + 1) * r.d_k)));
        lesson.list(seq.matrices());
        lesson.list(W.matrices());
        lesson.list(r.matrices());
        lesson.step("sequence", "The sequence", [&] { show_sequence(lesson, seq, r, input, flags, in.learned); });
        lesson.step("weights", "The weights: each head owns a block of columns", [&] { show_weights(lesson, r, W, flags, in.learned); });
        lesson.step("head-by-head", "Head by head: attention on each slice", [&] { show_heads(lesson, r); });
        lesson.step("side-by-side", "The heads' weights side by side",
                    [&] { show_side_by_side(lesson, seq.tokens, r); });
        lesson.step("concat", "Concatenate the heads, then mix them with W_O", [&] { show_concat(lesson, r); });
        lesson.step("split-matrix", "The same with one matrix: project once, then reshape",
                    [&] { show_split(lesson, r); });
        lesson.step("sizes", "The real sizes", [&] { show_real_sizes(lesson, r.d_model, r.h, W); });
        lesson.step("cost", "What h heads cost: the same as one", [&] { show_cost(lesson, r.n, r.d_model, r.h); });
        lesson.step("checks", "Self-checks", [&] { check_multi_head(lesson.checks(), seq.X, W, r); });
        lesson.present();
    });
}
