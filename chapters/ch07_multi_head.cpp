// Chapter 07 · Multi-head attention
//
// One attention pass gives each token one set of weights: it can look for one
// kind of thing. Multi-head attention runs h smaller passes side by side, each
// with its own slice of the projections, so that each head can look for
// something else; then it glues the heads' outputs together and mixes them
// with one more projection, W_O.
//
//   head_i = softmax(Q_i · K_iᵀ / √d_k) · V_i,   Q_i = X · W_Q[:, i·d_k : (i+1)·d_k]  (same for K, V)
//   MultiHead(X) = concat(head_0, …, head_{h−1}) · W_O
//
// Shapes: X (n × d_model); W_Q, W_K, W_V (d_model × h·d_k); W_O (h·d_v × d_model);
// Q_i, K_i, V_i (n × d_k); head i's weights (n × n); concat (n × h·d_v); output
// (n × d_model); d_k = d_v = d_model / h.
//
// The numbers of X and of the weights are random (seeded, the same on every
// machine): the flags change every shape, so no hand-made file could serve, and
// a real model's heads also start from random weights. What this chapter shows
// is the bookkeeping: the slices, the reshapes, the sizes and the cost.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/math/attention.hpp"
#include "common/lesson/elide.hpp"
#include "common/math/input_error.hpp"
#include "common/lesson/lesson.hpp"
#include "common/math/matmul.hpp"
#include "common/math/multi_head.hpp"
#include "common/lesson/print.hpp"
#include "common/math/random.hpp"
#include "common/lesson/self_check.hpp"
#include "common/lesson/sequence.hpp"
#include "common/lesson/side_by_side.hpp"
#include "common/lesson/text_table.hpp"
#include "common/lesson/text_width.hpp"

namespace {

const std::string default_sentence = "the cat sat on the mat";

// "h0:0", "h0:1", …, "h1:0", …: which head a column of W_Q (or a row of W_O) belongs to.
Labels head_labels(std::size_t h, std::size_t d_k) {
    Labels labels;
    for (std::size_t i = 0; i < h; ++i)
        for (std::size_t c = 0; c < d_k; ++c) labels.push_back(fmt::format("h{}:{}", i, c));
    return labels;
}

// One random row per distinct word, so that a word repeated in the sentence has
// the same embedding each time. (n × d_model)
Matrix random_embeddings(const Labels& tokens, std::size_t d_model, Random& random) {
    Labels words;
    Matrix table = Matrix::from_shape({tokens.size(), d_model});
    Matrix X = Matrix::from_shape({tokens.size(), d_model});
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        auto found = std::find(words.begin(), words.end(), tokens[i]);
        const auto w = static_cast<std::size_t>(found - words.begin());
        if (found == words.end()) {
            words.push_back(tokens[i]);
            for (std::size_t d = 0; d < d_model; ++d) table(w, d) = random.normal();
        }
        for (std::size_t d = 0; d < d_model; ++d) X(i, d) = table(w, d);
    }
    return X;
}

// How much of a query's weight two heads place differently, at most over the
// queries: half the summed |difference| of two rows (0 for the same row, 1 when
// the rows share no key). weights (n × m) each.
double weight_moved(const Matrix& a, const Matrix& b) {
    double most = 0.0;
    for (std::size_t r = 0; r < rows(a); ++r) {
        double moved = 0.0;
        for (std::size_t c = 0; c < cols(a); ++c)
            moved += std::abs(static_cast<double>(a(r, c)) - static_cast<double>(b(r, c)));
        most = std::max(most, moved / 2.0);
    }
    return most;
}

// True when every row of m equals the first: then every key is the same, and
// every head gives every key the same weight.
bool all_rows_equal(const Matrix& m) {
    for (std::size_t r = 1; r < rows(m); ++r)
        for (std::size_t c = 0; c < cols(m); ++c)
            if (m(r, c) != m(0, c)) return false;
    return true;
}

// Multiply-adds of one multi-head pass, counted from the shapes of the products
// it makes: an (r × k) · (k × c) product costs r·k·c.
struct Cost {
    std::uint64_t projections = 0;  // X · W_Q_i, X · W_K_i, X · W_V_i
    std::uint64_t scores = 0;       // Q_i · K_iᵀ
    std::uint64_t mix = 0;          // weights_i · V_i
    std::uint64_t output = 0;       // concat · W_O
    std::uint64_t total() const { return projections + scores + mix + output; }
};

std::uint64_t product_cost(std::size_t r, std::size_t k, std::size_t c) {
    return std::uint64_t{r} * std::uint64_t{k} * std::uint64_t{c};
}

// The cost of h heads over n tokens of width d_model, head by head.
Cost multi_head_cost(std::size_t n, std::size_t d_model, std::size_t h) {
    const std::size_t d_k = d_model / h;
    Cost cost;
    for (std::size_t i = 0; i < h; ++i) {
        cost.projections += 3 * product_cost(n, d_model, d_k);  // (n × d_model) · (d_model × d_k)
        cost.scores += product_cost(n, d_k, n);                 // (n × d_k) · (d_k × n)
        cost.mix += product_cost(n, n, d_k);                    // (n × n) · (n × d_v)
    }
    cost.output = product_cost(n, h * d_k, d_model);  // (n × h·d_v) · (h·d_v × d_model)
    return cost;
}

void print_cost_table(std::size_t n, std::size_t d_model, std::size_t h) {
    const Cost one = multi_head_cost(n, d_model, 1), many = multi_head_cost(n, d_model, h);
    const std::string one_head = fmt::format("1 head, d_k = {}", d_model);
    const std::string h_heads = fmt::format("{} heads, d_k = {}", h, d_model / h);
    const std::size_t w1 = std::max(display_width(one_head), grouped(one.total()).size());
    const std::size_t w2 = std::max(display_width(h_heads), grouped(many.total()).size());
    const auto row = [&](const std::string& piece, const std::string& formula, std::uint64_t a, std::uint64_t b) {
        return TextRow{piece, formula, grouped(a, w1), grouped(b, w2)};
    };
    fmt::print("\nn = {}, d_model = {}:\n{}", n, d_model,
               format_table({"product", "multiply-adds", one_head, h_heads},
                            {row("X · W_Q, X · W_K, X · W_V", "3 · h · n · d_model · d_k", one.projections, many.projections),
                             row("Q_i · K_iᵀ", "h · n · d_k · n", one.scores, many.scores),
                             row("weights_i · V_i", "h · n · n · d_v", one.mix, many.mix),
                             row("concat · W_O", "n · h·d_v · d_model", one.output, many.output),
                             row("total", "4·n·d_model² + 2·n²·d_model", one.total(), many.total())}));
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch07_multi_head", "Chapter 07 · Multi-head attention");
    const std::string& input = lesson.add_input_option(
        "\"" + default_sentence + "\" with random embeddings of width --d-model; with --input, d_model is the file's width");
    std::size_t h = 2;
    std::size_t d_model_flag = 8;
    std::uint64_t seed = 6;
    lesson.cli()
        .add_option("--heads", h, "h, the number of heads (1 to 64); must divide d_model")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{1}, std::size_t{64}).description(""))
        ->type_name("H");
    lesson.cli()
        .add_option("--d-model", d_model_flag, "d_model, the width of the embeddings (1 to 512; without --input)")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{1}, std::size_t{512}).description(""))
        ->type_name("D");
    lesson.cli()
        .add_option("--seed", seed, "seed of the random embeddings and weights")
        ->capture_default_str()
        ->type_name("S");

    return lesson.run(argc, argv, [&] {
        Random random(seed);
        Sequence seq;
        if (input.empty()) {
            seq.tokens = embed_sentence(read_data_file("embeddings.csv"), default_sentence).tokens;
            seq.X = random_embeddings(seq.tokens, d_model_flag, random);
            seq.dimensions = numbered("d", d_model_flag);
        } else {
            seq = load_sequence(input, default_sentence);
            if (lesson.cli().count("--d-model") > 0 && d_model_flag != cols(seq.X))
                throw InputError(fmt::format("--d-model {}: with --input, d_model is the width of {} ({})",
                                             d_model_flag, input, cols(seq.X)));
        }
        const Labels& tokens = seq.tokens;
        const Matrix& X = seq.X;  // (n × d_model)
        const std::size_t n = rows(X), d_model = cols(X);
        if (d_model % h != 0)
            throw InputError(
                input.empty()
                    ? fmt::format("--d-model {} is not divisible by --heads {}: each head gets d_model / h columns, "
                                  "so h must divide d_model",
                                  d_model, h)
                    : fmt::format("--heads {}: the width of --input {} ({}) is not divisible by {}: each head gets "
                                  "d_model / h columns, so h must divide d_model",
                                  h, input, d_model, h));
        const std::size_t d_k = d_model / h;  // = d_v
        const float scale = std::sqrt(2.0f / static_cast<float>(d_model));  // wide enough that heads differ
        const Matrix W_Q = random.normal_matrix(d_model, h * d_k, scale);       // (d_model × h·d_k)
        const Matrix W_K = random.normal_matrix(d_model, h * d_k, scale);       // (d_model × h·d_k)
        const Matrix W_V = random.normal_matrix(d_model, h * d_k, scale);       // (d_model × h·d_v)
        const Matrix W_O = random.normal_matrix(h * d_k, d_model, 1.0f / std::sqrt(static_cast<float>(d_model)));
        const Labels by_head = head_labels(h, d_k);

        // ── Step 1: the sequence ─────────────────────────────────────────────
        lesson.step("The sequence");
        lesson.say(fmt::format(
            "{} tokens of width d_model = {}, split into h = {} heads of d_k = d_model / h = {}.\n"
            "{}",
            n, d_model, h, d_k,
            input.empty() ? "The embeddings are random (seeded): a repeated word has the same row."
                          : "The embeddings are the rows of " + input + "."));
        lesson.show("X", "", X, tokens, seq.dimensions, 2);

        // ── Step 2: the weights ──────────────────────────────────────────────
        lesson.step("The weights: each head owns a block of columns");
        lesson.say(fmt::format(
            "W_Q, W_K and W_V are (d_model × h·d_k) = ({} × {}). Head i owns the columns\n"
            "[i·d_k, (i+1)·d_k); the column labels say which head (h1:2 is head 1's\n"
            "third column). W_O is (h·d_v × d_model): head i's output meets its rows.",
            d_model, h * d_k));
        lesson.show("W_Q", "", W_Q, seq.dimensions, by_head, 2);
        lesson.show("W_K", "", W_K, seq.dimensions, by_head, 2);
        lesson.show("W_V", "", W_V, seq.dimensions, by_head, 2);
        lesson.show("W_O", "", W_O, by_head, seq.dimensions, 2);

        // ── Step 3: head by head ─────────────────────────────────────────────
        lesson.step("Head by head: attention on each slice");
        lesson.say(
            "Each head is the attention of chapter 05 with its own, narrower W_Q_i, W_K_i,\n"
            "W_V_i. A column slice of a row-major matrix is not contiguous, so each slice\n"
            "is copied before it goes to BLAS.");
        Matrix concat_loop = Matrix::from_shape({n, h * d_k});  // (n × h·d_v), filled head by head
        std::vector<Matrix> head_weights;
        for (std::size_t i = 0; i < h; ++i) {
            const Matrix Q_i = matmul(X, head_columns(W_Q, h, i));  // (n × d_k)
            const Matrix K_i = matmul(X, head_columns(W_K, h, i));  // (n × d_k)
            const Matrix V_i = matmul(X, head_columns(W_V, h, i));  // (n × d_v)
            const AttentionSteps a = scaled_dot_product_attention(Q_i, K_i, V_i);
            const Labels slice(by_head.begin() + static_cast<long>(i * d_k),
                               by_head.begin() + static_cast<long>((i + 1) * d_k));
            const std::string cols_text = fmt::format("[:, {}:{}]", i * d_k, (i + 1) * d_k);
            lesson.show(fmt::format("head{}_Q", i), "X · W_Q" + cols_text, Q_i, tokens, slice, 2);
            lesson.show(fmt::format("head{}_K", i), "X · W_K" + cols_text, K_i, tokens, slice, 2);
            lesson.show(fmt::format("head{}_V", i), "X · W_V" + cols_text, V_i, tokens, slice, 2);
            lesson.show(fmt::format("head{}_output", i), fmt::format("head{}_weights · V_{}", i, i), a.output, tokens,
                        slice, 3);
            for (std::size_t r = 0; r < n; ++r)
                for (std::size_t c = 0; c < d_k; ++c) concat_loop(r, i * d_k + c) = a.output(r, c);
            head_weights.push_back(a.weights);
        }

        // ── Step 4: the heads' weights side by side ──────────────────────────
        lesson.step("The heads' weights side by side");
        lesson.say(fmt::format(
            "head{{i}}_weights = softmax(Q_i · K_iᵀ / √{}). Same tokens, different slices of\n"
            "the weights: each head spreads its attention its own way.",
            d_k));
        std::vector<std::string> blocks;
        for (std::size_t i = 0; i < h; ++i) {
            const std::string name = fmt::format("head{}_weights", i);
            blocks.push_back(format_matrix(name, "", head_weights[i], tokens, tokens, lesson.style()));
            lesson.keep_for_dump(name, head_weights[i]);
            lesson.picture(name, fmt::format("softmax(Q_{0} · K_{0}ᵀ / √d_k)", i), head_weights[i], tokens, tokens);
        }
        fmt::print("{}", side_by_side(blocks, 110));
        std::vector<TextRow> favourites;
        TextRow header{"query"};
        for (std::size_t i = 0; i < h; ++i) header.push_back(fmt::format("head {} looks most at", i));
        for (const std::size_t r : elided_indices(n)) {
            if (r == elided) {
                favourites.push_back({"…"});
                continue;
            }
            TextRow row{tokens[r]};
            for (std::size_t i = 0; i < h; ++i) {
                const auto& w = head_weights[i];
                const std::size_t best = argmax_of_row(w, r);
                row.push_back(fmt::format("{} ({:.2f})", tokens[best], w(r, best)));
            }
            favourites.push_back(row);
        }
        fmt::print("\n{}", format_table(header, favourites));

        // ── Step 5: concatenate and project ──────────────────────────────────
        lesson.step("Concatenate the heads, then mix them with W_O");
        lesson.say(fmt::format(
            "The heads' outputs side by side make one (n × h·d_v) = ({} × {}) matrix. Each\n"
            "head only saw its own slice; W_O mixes what they found back into d_model = {}\n"
            "dimensions, the width the next layer expects.",
            n, h * d_k, d_model));
        const std::string pieces = h == 1   ? "head0_output"
                                   : h == 2 ? "[head0_output, head1_output]"
                                            : fmt::format("[head0_output, …, head{}_output]", h - 1);
        lesson.show("concat", pieces, concat_loop, tokens, by_head);
        const Matrix output_loop = matmul(concat_loop, W_O);  // (n × d_model)
        lesson.show("output", "concat · W_O", output_loop, tokens, seq.dimensions);

        // ── Step 6: one split matrix ─────────────────────────────────────────
        lesson.step("The same with one matrix: project once, then reshape");
        const Matrix Q = matmul(X, W_Q);  // (n × h·d_k): every head's queries at once
        lesson.say(fmt::format(
            "Real code does not loop over weight slices. It projects once, Q = X · W_Q,\n"
            "whose column blocks are exactly the heads' Q_i (X · W_Q[:, a:b] = (X · W_Q)[:, a:b]),\n"
            "then reshapes ({} × {}) → ({} × {} × {}) and swaps the first two axes → ({} × {} × {}),\n"
            "one (n × d_k) block per head, as PyTorch's q.view(n, h, d_k).transpose(0, 1).\n"
            "Attention runs on every block; the blocks are swapped and reshaped back\n"
            "to (n × h·d_v), which is concat.",
            n, d_model, n, h, d_k, h, n, d_k));
        lesson.show("Q", "X · W_Q", Q, tokens, by_head, 2);
        const Heads Q_split = split_heads(Q, h);  // (h × n × d_k)
        const MultiHeadSteps split = multi_head_attention(X, W_Q, W_K, W_V, W_O, h);
        fmt::print("\nsplit_heads(Q): ({} × {} × {});  block 0 = head0_Q, …, block {} = head{}_Q\n",
                   Q_split.shape(0), Q_split.shape(1), Q_split.shape(2), h - 1, h - 1);

        // ── Step 7: the real sizes ───────────────────────────────────────────
        lesson.step("The real sizes");
        lesson.say(
            "Every head has d_k = d_model / h, so the four projections are (d_model × d_model)\n"
            "whatever h is. GPT-2 adds a bias to each projection (in its checkpoint: c_attn\n"
            "(768 × 2304) holds W_Q, W_K, W_V side by side, c_proj (768 × 768) is W_O).");
        const auto params = [](std::size_t d, bool biases) {
            return 4 * std::uint64_t{d} * d + (biases ? 4 * std::uint64_t{d} : 0);
        };
        const std::uint64_t ours = W_Q.size() + W_K.size() + W_V.size() + W_O.size();
        const std::size_t pw = grouped(params(768, true)).size();
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
        fmt::print("\n{}", format_table({"model", "d_model", "h", "d_k", "W_Q_i per head", "W_Q, W_K, W_V, W_O",
                                         "biases", "parameters"},
                                        {model_row("this chapter", d_model, h, false, ours),
                                         model_row("Transformer Base", 512, 8, false, params(512, false)),
                                         model_row("GPT-2 small", 768, 12, true, params(768, true))}));

        // ── Step 8: the cost ─────────────────────────────────────────────────
        lesson.step("What h heads cost: the same as one");
        lesson.say(
            "h heads of width d_model / h make h times as many products, each h times\n"
            "narrower: the multiply-adds are the same as for one head of width d_model.\n"
            "Only the softmax grows: h · n² exponentials instead of n².");
        print_cost_table(n, d_model, h);
        print_cost_table(512, 512, 8);

        // ── Self-checks ──────────────────────────────────────────────────────
        lesson.step("Self-checks");
        auto& check = lesson.checks();
        // The outputs grow with the inputs (values of 1e6 give outputs of 1e6), and so
        // does float32 rounding: these tolerances are relative to the outputs' size.
        check.close("the loop over heads equals the split matrix: concat", max_abs_difference(concat_loop, split.concat),
                    scaled_tolerance(1e-4, split.concat));
        check.close("the loop over heads equals the split matrix: output", max_abs_difference(output_loop, split.output),
                    scaled_tolerance(1e-4, split.output));
        double weights_error = 0.0, row_sum_error = 0.0;
        for (std::size_t i = 0; i < h; ++i) {
            weights_error = std::max(weights_error, max_abs_difference(head_weights[i], head(split.weights, i)));
            row_sum_error = std::max(row_sum_error, worst_row_sum_error(head_weights[i]));
        }
        check.close("every head's weights: loop = split matrix", weights_error, 1e-5);
        check.close("every row of every head's weights sums to 1", row_sum_error, row_sum_tolerance(n));
        // concat · W_O = Σ_i head_i · W_O[i·d_v : (i+1)·d_v, :]: W_O adds up what each head found.
        Matrix summed = Matrix::from_shape({n, d_model});
        summed.fill(0.0f);
        for (std::size_t i = 0; i < h; ++i)
            summed += matmul(head_columns(concat_loop, h, i), head_rows(W_O, h, i));
        check.close("output = Σ_i head_i · (head i's rows of W_O)", max_abs_difference(summed, output_loop),
                    scaled_tolerance(1e-4, output_loop));
        if (h > 1) {
            // How differently two heads attend, measured as a share of a query's weight
            // (it does not shrink as a longer row spreads its weight thinner); the
            // claim is about the two most alike heads, so twins anywhere show.
            const std::string claim = "the heads attend differently";
            if (all_rows_equal(X)) {
                check.skip(claim, n == 1 ? "one token: every weight is 1"
                                         : "every token has the same embedding: every weight is 1/n");
            } else {
                std::size_t a = 0, b = 1;
                double least = weight_moved(head_weights[0], head_weights[1]);
                for (std::size_t i = 0; i < h; ++i)
                    for (std::size_t j = i + 1; j < h; ++j)
                        if (const double moved = weight_moved(head_weights[i], head_weights[j]); moved < least)
                            least = moved, a = i, b = j;
                check.that(h == 2 ? fmt::format("{} (they place up to {:.2f} of a query's weight differently)", claim,
                                                least)
                                  : fmt::format("{} (the two most alike, heads {} and {}, place up to {:.2f} of a "
                                                "query's weight differently)",
                                                claim, a, b, least),
                           least > 0.05);
            }
        }
        check.that("GPT-2 small: c_attn 768·2304 + 2304 + c_proj 768·768 + 768 = 2 362 368",
                   768 * 2304 + 2304 + 768 * 768 + 768 == 2362368 && params(768, true) == 2362368);
        const Cost one = multi_head_cost(n, d_model, 1), many = multi_head_cost(n, d_model, h);
        const std::uint64_t closed_form = 4 * std::uint64_t{n} * d_model * d_model + 2 * std::uint64_t{n} * n * d_model;
        check.that(fmt::format("{} heads cost the multiply-adds of 1 head: {} = {} = 4·n·d_model² + 2·n²·d_model", h,
                               grouped(many.total()), grouped(one.total())),
                   many.total() == one.total() && one.total() == closed_form);
    });
}
