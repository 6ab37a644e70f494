// Chapter 09 · Positional encoding
//
// Attention compares every query with every key, and nothing in
// softmax(Q · Kᵀ / √d_k) · V says where a token stands. Permute the tokens and
// the outputs are permuted the same way (self-attention is permutation-
// equivariant): "the cat sat on the mat" and "the mat sat on the cat" give
// "sat" exactly the same output. The paper adds a position signal to the
// embeddings, the sinusoidal encoding
//
//   PE(pos, 2i) = sin(pos / 10000^(2i/d_model)),   PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))
//
// and attention runs on X + PE instead of X.
//
// Shapes: X, PE, X + PE (n × d_model); W_Q, W_K, W_V (d_model × d_k) from
// data/projections/ (chapter 05); Q, K, V, output (n × d_k); M_k (d_model × d_model).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/math/attention.hpp"
#include "common/lesson/elide.hpp"
#include "common/math/input_error.hpp"
#include "common/lesson/lesson.hpp"
#include "common/math/matmul.hpp"
#include "common/math/permutation.hpp"
#include "common/math/positional_encoding.hpp"
#include "common/lesson/sequence.hpp"
#include "common/lesson/text_table.hpp"

namespace {

const std::string default_sentence = "the cat sat on the mat";
const Order swap_cat_and_mat = {0, 5, 2, 3, 4, 1};  // "the mat sat on the cat"

struct Projections {
    LabelledMatrix W_Q, W_K, W_V;  // (d_model × d_k) each
};

// Self-attention of chapter 05 on the rows of X. (n × d_model) → output (n × d_v)
AttentionSteps self_attention(const Matrix& X, const Projections& W) {
    return scaled_dot_product_attention(matmul(X, W.W_Q.values), matmul(X, W.W_K.values), matmul(X, W.W_V.values));
}

// "sin0", "cos0", "sin1", …: which function and which pair each column of PE is.
Labels pe_labels(std::size_t d_model) {
    Labels labels;
    for (std::size_t c = 0; c < d_model; ++c) labels.push_back(fmt::format("{}{}", c % 2 == 0 ? "sin" : "cos", c / 2));
    return labels;
}

Matrix row_of(const Matrix& m, std::size_t i) {
    Matrix row = Matrix::from_shape({1, cols(m)});
    for (std::size_t c = 0; c < cols(m); ++c) row(0, c) = m(i, c);
    return row;
}

Matrix first_columns(const Matrix& m, std::size_t count) {
    Matrix out = Matrix::from_shape({rows(m), count});
    for (std::size_t i = 0; i < rows(m); ++i)
        for (std::size_t c = 0; c < count; ++c) out(i, c) = m(i, c);
    return out;
}

// The output row of one token in sentence A (row i_a) and in sentence B (row i_b), side by side.
std::string compare_rows(const std::string& word, const Labels& columns, const Matrix& out_a, std::size_t i_a,
                         const Matrix& out_b, std::size_t i_b) {
    std::vector<TextRow> table;
    for (std::size_t c = 0; c < cols(out_a); ++c)
        table.push_back({columns[c], format_number(out_a(i_a, c), 3), format_number(out_b(i_b, c), 3),
                         format_number(out_b(i_b, c) - out_a(i_a, c), 3)});
    return format_table({"\"" + word + "\"", "in A", "in B", "B − A"}, table);
}

// The formula of the paper, written out again in double (exp/log instead of pow),
// as an independent check of sinusoidal_encoding.
double pe_formula(std::size_t pos, std::size_t c, std::size_t d_model) {
    const double exponent = double(2 * (c / 2)) / double(d_model);
    const double angle = double(pos) * std::exp(-exponent * std::log(10000.0));
    return c % 2 == 0 ? std::sin(angle) : std::cos(angle);
}

double formula_error(const Matrix& PE) {
    double worst = 0.0;
    for (std::size_t pos = 0; pos < rows(PE); ++pos)
        for (std::size_t c = 0; c < cols(PE); ++c)
            worst = std::max(worst, std::abs(PE(pos, c) - pe_formula(pos, c, cols(PE))));
    return worst;
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch09_positional_encoding", "Chapter 09 · Positional encoding");
    const std::string& input = lesson.add_input_option(
        "\"" + default_sentence + "\", compared with \"the mat sat on the cat\" (with --input: the sequence reversed)");
    std::size_t max_pos = 50, d_pe = 16, shift = 1;
    lesson.cli()
        .add_option("--max-pos", max_pos, "positions of the long encoding of step 6")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{1}, std::size_t{10000}));
    lesson.cli()
        .add_option("--d-pe", d_pe, "width of the long encoding of step 6 (even: pairs of sin and cos)")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{2}, std::size_t{512}));
    lesson.cli()
        .add_option("--shift", shift, "k of step 5: PE(pos + k) = PE(pos) · M_k")
        ->capture_default_str()
        ->check(CLI::Range(std::size_t{0}, std::size_t{1000}));

    return lesson.run(argc, argv, [&] {
        if (d_pe % 2 != 0)
            throw InputError(fmt::format("--d-pe {}: must be even (the columns come in pairs of sin and cos)", d_pe));
        const Projections W{read_data_file("projections/W_Q.csv"), read_data_file("projections/W_K.csv"),
                            read_data_file("projections/W_V.csv")};
        const Sequence seq = load_sequence(input, default_sentence);
        require_projects(W.W_Q, seq, input.empty() ? data_path("embeddings.csv") : input);
        const Labels& tokens = seq.tokens;
        const Matrix& X = seq.X;  // (n × d_model)
        const std::size_t n = rows(X), d_model = cols(X);
        if (n < 2) throw InputError(fmt::format("--input {}: needs at least 2 tokens to reorder", input));
        const Order order = input.empty() ? swap_cat_and_mat : reversal(n);
        const Labels tokens_b = permute_labels(tokens, order);
        const Matrix X_b = permute_rows(X, order);  // (n × d_model): the same rows, another order
        const std::string sentence_a = join_elided(tokens, " ");  // a long sequence is shortened with …
        const std::string sentence_b = join_elided(tokens_b, " ");
        std::vector<std::string> order_text;
        for (const std::size_t i : order) order_text.push_back(std::to_string(i));
        // The token whose output we follow: "sat" stays at position 2 in both sentences;
        // for a learner's sequence, the first token (it moves to the end).
        const std::size_t watched = input.empty() ? 2 : 0;
        const std::size_t watched_b =
            static_cast<std::size_t>(std::find(order.begin(), order.end(), watched) - order.begin());
        const std::string& word = tokens[watched];

        // ── Step 1: two sentences, the same vectors ──────────────────────────
        lesson.step("Two sentences, the same vectors");
        lesson.say(fmt::format(
            "A: \"{}\"\nB: \"{}\"\n"
            "B has exactly the rows of A's X, in another order: row i of X_B is row\n"
            "order[i] of X, order = ({}). {}",
            sentence_a, sentence_b, join_elided(order_text, ", "),
            input.empty() ? "Who sat on whom is only in the order." : "Only the order differs."));
        lesson.show("X", "sentence A", X, tokens, seq.dimensions, 1);
        lesson.keep_for_dump("X_permuted", X_b);
        lesson.keep_for_dump("W_Q", W.W_Q.values);
        lesson.keep_for_dump("W_K", W.W_K.values);
        lesson.keep_for_dump("W_V", W.W_V.values);

        // ── Step 2: attention without positions ──────────────────────────────
        lesson.step("Self-attention cannot tell them apart");
        lesson.say(
            "Self-attention with the projections of chapter 05 on each sentence. Every\n"
            "score is q_i · k_j, and neither vector knows its position: permuting the\n"
            "tokens permutes the rows and columns of the weights, and the rows of the output.");
        const AttentionSteps plain_a = self_attention(X, W);    // (n × d_v)
        const AttentionSteps plain_b = self_attention(X_b, W);  // (n × d_v)
        lesson.show("output", "attention(X), sentence A", plain_a.output, tokens, W.W_V.columns, 3);
        lesson.show("output_permuted", "attention(X_B), sentence B", plain_b.output, tokens_b, W.W_V.columns, 3);
        fmt::print("\n{}", compare_rows(word, W.W_V.columns, plain_a.output, watched, plain_b.output, watched_b));
        lesson.say(fmt::format(
            "\n\"{}\" gets the same output in both sentences: to attention they are the same\n"
            "bag of words.",
            word));

        // ── Step 3: the sinusoidal encoding ──────────────────────────────────
        lesson.step("The sinusoidal encoding");
        lesson.say(fmt::format(
            "PE(pos, 2i) = sin(pos · ω_i), PE(pos, 2i+1) = cos(pos · ω_i), ω_i = 1 / 10000^(2i/d_model).\n"
            "Each pair of columns turns on a circle at its own speed: pair 0 by 1 radian per\n"
            "position, the last pair {:g} times slower. d_model = {}, the width of the embeddings.",
            1.0 / pe_frequency((d_model - 1) / 2, d_model), d_model));
        std::vector<TextRow> speeds;
        for (std::size_t i = 0; 2 * i < d_model; ++i) {
            const double omega = pe_frequency(i, d_model);
            speeds.push_back({std::to_string(i), fmt::format("{}", 2 * i + 1 < d_model ? fmt::format("{}, {}", 2 * i, 2 * i + 1) : std::to_string(2 * i)),
                              fmt::format("{:.6f}", omega), fmt::format("{:.1f}", 2.0 * M_PI / omega)});
        }
        fmt::print("\n{}", format_table({"pair i", "columns", "ω_i", "wavelength 2π/ω_i (positions)"}, speeds));
        const Matrix PE = sinusoidal_encoding(n, d_model);  // (n × d_model)
        const Labels positions = numbered("pos ", n);
        lesson.show("PE", "sinusoidal, one row per position", PE, positions, pe_labels(d_model), 3);

        // ── Step 4: attention on X + PE ──────────────────────────────────────
        lesson.step("Adding the positions: X + PE");
        lesson.say(fmt::format(
            "The encoding belongs to the positions, not to the words: B's second token\n"
            "'{}' gets PE(1), as A's second token '{}' does. So the two sentences are no\n"
            "longer the same rows in another order.",
            tokens_b[1], tokens[1]));
        const Matrix X_plus_PE = X + PE;      // (n × d_model)
        const Matrix X_b_plus_PE = X_b + PE;  // (n × d_model)
        lesson.show("X_plus_PE", "X + PE, sentence A", X_plus_PE, tokens, seq.dimensions, 3);
        const AttentionSteps pe_a = self_attention(X_plus_PE, W);
        const AttentionSteps pe_b = self_attention(X_b_plus_PE, W);
        lesson.show("output_pe", "attention(X + PE), sentence A", pe_a.output, tokens, W.W_V.columns, 3);
        lesson.show("output_permuted_pe", "attention(X_B + PE), sentence B", pe_b.output, tokens_b, W.W_V.columns, 3);
        // Whom the watched token looks at, position by position, in each sentence.
        std::vector<TextRow> looks;
        std::size_t top_a = 0, top_b = 0;
        for (std::size_t j = 0; j < n; ++j) {
            if (pe_a.weights(watched, j) > pe_a.weights(watched, top_a)) top_a = j;
            if (pe_b.weights(watched_b, j) > pe_b.weights(watched_b, top_b)) top_b = j;
        }
        // A long sequence shows its first and last positions, and the two the text names.
        std::vector<std::size_t> shown = {top_a, top_b};
        for (const std::size_t j : elided_indices(n))
            if (j != elided) shown.push_back(j);
        std::sort(shown.begin(), shown.end());
        shown.erase(std::unique(shown.begin(), shown.end()), shown.end());
        for (std::size_t s = 0; s < shown.size(); ++s) {
            const std::size_t j = shown[s];
            if (s > 0 && j > shown[s - 1] + 1) looks.push_back({"", "…", "", "…"});  // positions left out
            looks.push_back({std::to_string(j), tokens[j], format_number(pe_a.weights(watched, j), 3), tokens_b[j],
                             format_number(pe_b.weights(watched_b, j), 3)});
        }
        fmt::print("\n{}", format_table({"position", "A", "weight of \"" + word + "\"", "B", "weight of \"" + word + "\""},
                                        looks));
        lesson.say(fmt::format(
            "\nWith positions in the keys, \"{}\" looks most at position {} in A ('{}') and at\n"
            "position {} in B ('{}'), so it fetches other values:",
            word, top_a, tokens[top_a], top_b, tokens_b[top_b]));
        fmt::print("\n{}", compare_rows(word, W.W_V.columns, pe_a.output, watched, pe_b.output, watched_b));
        const double largest_change =
            max_abs_difference(row_of(pe_b.output, watched_b), row_of(pe_a.output, watched));
        lesson.say(fmt::format(
            "\n\"{}\" now has a different output in each sentence (largest change {:.3f}): the\n"
            "keys of the words around it carry their positions, so it weighs them differently.\n"
            "Notice how loud PE is next to these small embeddings: every cosine column starts\n"
            "at 1. The paper multiplies the embeddings by √d_model before adding PE, and a\n"
            "trained model learns embeddings that keep words and positions apart.",
            word, largest_change));

        // ── Step 5: why sines and cosines ────────────────────────────────────
        lesson.step(fmt::format("Why sines and cosines: PE(pos + {0}) = PE(pos) · M_{0}", shift));
        const std::size_t paired = d_model - d_model % 2;  // columns with a sin–cos partner
        lesson.say(fmt::format(
            "sin(a + b) = sin a cos b + cos a sin b and cos(a + b) = cos a cos b − sin a sin b,\n"
            "so moving k = {0} positions on turns every pair (sin, cos) by the angle ω_i k: a\n"
            "rotation. All of them together are one block-diagonal matrix M_k, with the 2×2\n"
            "block [[cos ω_i k, −sin ω_i k], [sin ω_i k, cos ω_i k]] for pair i (the transpose of\n"
            "the textbook block, because our vectors are rows). M_k holds no pos: the same\n"
            "matrix moves every position k steps on, so \"k tokens further\" is a linear map a\n"
            "projection like W_Q or W_K can learn to use.",
            shift));
        if (paired < d_model)
            lesson.say(fmt::format("d_model = {} is odd: the last column, a sine with no cosine, is left out.",
                                   d_model));
        const Matrix M_k = pe_shift_matrix(shift, d_model);  // (d_model × d_model)
        lesson.show("M_k", fmt::format("rotation by ω_i · {}", shift), M_k, pe_labels(d_model), pe_labels(d_model), 3);
        // Every position of a longer encoding, moved on by M_k, against the formula.
        const Matrix PE_rot = sinusoidal_encoding(max_pos + shift, d_model);  // (max_pos + k × d_model)
        Matrix PE_from = Matrix::from_shape({max_pos, d_model}), PE_to = Matrix::from_shape({max_pos, d_model});
        for (std::size_t pos = 0; pos < max_pos; ++pos)
            for (std::size_t c = 0; c < d_model; ++c)
                PE_from(pos, c) = PE_rot(pos, c), PE_to(pos, c) = PE_rot(pos + shift, c);
        const Matrix moved = matmul(PE_from, M_k);  // (max_pos × d_model): PE(pos) · M_k
        const double rotation_error = max_abs_difference(first_columns(moved, paired), first_columns(PE_to, paired));
        lesson.say(fmt::format("\nPE(pos) · M_{} against PE(pos + {}) for pos = 0 … {}: largest difference {:.1e}.",
                               shift, shift, max_pos - 1, rotation_error));

        // ── Step 6: a longer encoding ────────────────────────────────────────
        lesson.step(fmt::format("A longer encoding: {} positions × {} dimensions", max_pos, d_pe));
        lesson.say(
            "The first columns change fast and the last ones slowly: read down a column to\n"
            "see its wavelength. Together the columns give every position its own pattern,\n"
            "like the digits of a number, but smooth.");
        const Matrix PE_long = sinusoidal_encoding(max_pos, d_pe);  // (max_pos × d_pe)
        lesson.show("PE_long", "sinusoidal", PE_long, numbered("pos ", max_pos), pe_labels(d_pe), 2);
        std::vector<TextRow> waves;
        for (std::size_t i = 0; i < d_pe / 2; ++i)
            waves.push_back({std::to_string(i), fmt::format("{:.1f}", 2.0 * M_PI / pe_frequency(i, d_pe))});
        fmt::print("\n{}", format_table({"pair i", "wavelength (positions)"}, waves));

        // PE(pos) · PE(pos + k) = Σ_i sin·sin + cos·cos = Σ_i cos(ω_i k): pos cancels.
        const std::vector<std::size_t> starts = {0, 1, 2, 5, 10, 20};
        const std::size_t ks = 8;
        const Matrix PE_dot_source = sinusoidal_encoding(starts.back() + ks, d_pe);
        Matrix PE_dots = Matrix::from_shape({starts.size() + 1, ks});
        Labels dot_rows, dot_cols = numbered("k=", ks);
        for (std::size_t r = 0; r < starts.size(); ++r) {
            dot_rows.push_back(fmt::format("pos {}", starts[r]));
            for (std::size_t k = 0; k < ks; ++k) {
                double dot = 0.0;
                for (std::size_t c = 0; c < d_pe; ++c)
                    dot += double(PE_dot_source(starts[r], c)) * PE_dot_source(starts[r] + k, c);
                PE_dots(r, k) = static_cast<float>(dot);
            }
        }
        dot_rows.push_back("Σ cos(ωk)");
        for (std::size_t k = 0; k < ks; ++k) {
            double sum = 0.0;
            for (std::size_t i = 0; i < d_pe / 2; ++i) sum += std::cos(double(k) * pe_frequency(i, d_pe));
            PE_dots(starts.size(), k) = static_cast<float>(sum);
        }
        lesson.say(
            "\nThe dot product of two positions' encodings depends only on how far apart\n"
            "they are: PE(pos) · PE(pos + k) = Σ_i cos(ω_i k), the same in every row.\n"
            "It is largest at k = 0, where each pair adds sin² + cos² = 1, and smaller at\n"
            "every other distance.");
        lesson.show("PE_dots", "PE(pos) · PE(pos + k)", PE_dots, dot_rows, dot_cols, 3);

        // ── Self-checks ─────────────────────────────────────────────────────
        lesson.step("Self-checks");
        auto& check = lesson.checks();
        check.close("PE follows the formula of the paper (recomputed in double), sentence and long encoding",
                    std::max(formula_error(PE), formula_error(PE_long)), 1e-6);
        check.close("without PE, permuting the tokens permutes the output rows: output_B = P · output_A",
                    max_abs_difference(plain_b.output, permute_rows(plain_a.output, order)), 1e-6);
        check.close(fmt::format("without PE, \"{}\" gets the same output in both sentences", word),
                    max_abs_difference(row_of(plain_b.output, watched_b), row_of(plain_a.output, watched)), 1e-6);
        const double pe_breaks = max_abs_difference(pe_b.output, permute_rows(pe_a.output, order));
        check.that(fmt::format("with PE, the outputs are no longer permuted copies (largest difference {:.3f})",
                               pe_breaks),
                   pe_breaks > 1e-3);
        check.close(fmt::format("PE(pos + {0}) = PE(pos) · M_{0} for every pos < {1}", shift, max_pos), rotation_error,
                    1e-5);
        double dot_error = 0.0;
        for (std::size_t r = 0; r < starts.size(); ++r)
            for (std::size_t k = 0; k < ks; ++k)
                dot_error = std::max(dot_error, double(std::abs(PE_dots(r, k) - PE_dots(starts.size(), k))));
        check.close("PE(pos) · PE(pos + k) = Σ_i cos(ω_i k), whatever pos", dot_error, 1e-5);
    });
}
