// Chapter 09 · Positional encoding
//
// The lesson: two sentences with the same words in another order get the same
// outputs from attention (math.cpp computes both); the sinusoidal encoding of
// the paper, added to the embeddings, tells them apart. Then why sines and
// cosines: moving k positions on is one rotation M_k, and the dot product of two
// positions' encodings depends only on their distance. The self-checks compare
// with the paper's formula, attention written as loops in double, and closed forms.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/09_positional_encoding/math.hpp"
#include "common/lesson/elide.hpp"
#include "common/lesson/lesson.hpp"
#include "common/lesson/sequence.hpp"
#include "common/lesson/text_table.hpp"
#include "common/math/input_error.hpp"
#include "common/math/positional_encoding.hpp"

namespace {

const std::string default_sentence = "the cat sat on the mat";
const Order swap_cat_and_mat = {0, 5, 2, 3, 4, 1};  // "the mat sat on the cat"

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

// The output row of one token in sentence A (row i_a) and in sentence B (row i_b), side by side.
std::string compare_rows(const std::string& word, const Labels& columns, const Matrix& out_a, std::size_t i_a,
                         const Matrix& out_b, std::size_t i_b) {
    std::vector<TextRow> table;
    for (std::size_t c = 0; c < cols(out_a); ++c)
        table.push_back({columns[c], format_number(out_a(i_a, c), 3), format_number(out_b(i_b, c), 3),
                         format_number(out_b(i_b, c) - out_a(i_a, c), 3)});
    return format_table({"\"" + word + "\"", "in A", "in B", "B − A"}, table);
}

// What every step shows: the two sentences and what math.cpp computed.
struct Shown {
    Lesson& lesson;
    const Sequence& seq;
    const Labels& value_columns;  // the columns of W_V: v_animal, …
    const Order& order;
    const Labels tokens_b;         // sentence B's tokens
    const std::size_t watched, watched_b;  // the followed token's row in A and in B
    const Projections& W;
    const PositionalLesson& r;
    const std::string& input;
};

// Step: the two sentences, the same rows of X in another order.
void show_sentences(const Shown& s) {
    std::vector<std::string> order_text;
    for (const std::size_t i : s.order) order_text.push_back(std::to_string(i));
    s.lesson.say(fmt::format(
        "A: \"{}\"\nB: \"{}\"\n"
        "B has exactly the rows of A's X, in another order: row i of X_B is row\n"
        "order[i] of X, order = ({}). {}",
        join_elided(s.seq.tokens, " "), join_elided(s.tokens_b, " "), join_elided(order_text, ", "),
        s.input.empty() ? "Who sat on whom is only in the order." : "Only the order differs."));
    s.lesson.show("X", s.seq.X, ShowAs("sentence A").labels(s.seq.tokens, s.seq.dimensions).decimals(1));
    s.lesson.keep_for_dump("X_permuted", s.r.X_b);
    s.lesson.keep_for_dump("W_Q", s.W.W_Q);
    s.lesson.keep_for_dump("W_K", s.W.W_K);
    s.lesson.keep_for_dump("W_V", s.W.W_V);
}

// Step: attention without positions gives permuted copies.
void show_no_positions(const Shown& s) {
    s.lesson.say(
        "Self-attention with the projections of chapter 05 on each sentence. Every\n"
        "score is q_i · k_j, and neither vector knows its position: permuting the\n"
        "tokens permutes the rows and columns of the weights, and the rows of the output.");
    s.lesson.show("output", s.r.plain_a.output,
                  ShowAs("attention(X), sentence A").labels(s.seq.tokens, s.value_columns));
    s.lesson.show("output_permuted", s.r.plain_b.output,
                  ShowAs("attention(X_B), sentence B").labels(s.tokens_b, s.value_columns));
    const std::string& word = s.seq.tokens[s.watched];
    s.lesson.say(compare_rows(word, s.value_columns, s.r.plain_a.output, s.watched, s.r.plain_b.output, s.watched_b));
    s.lesson.say(
        fmt::format("\"{}\" gets the same output in both sentences: to attention they are the same\n"
                    "bag of words.",
                    word));
}

// Step: the frequencies and PE.
void show_encoding(const Shown& s) {
    const std::size_t d_model = cols(s.seq.X);
    s.lesson.say(fmt::format(
        "PE(pos, 2i) = sin(pos · ω_i), PE(pos, 2i+1) = cos(pos · ω_i), ω_i = 1 / 10000^(2i/d_model).\n"
        "Each pair of columns turns on a circle at its own speed: pair 0 by 1 radian per\n"
        "position, the last pair {:g} times slower. d_model = {}, the width of the embeddings.",
        1.0 / pe_frequency((d_model - 1) / 2, d_model), d_model));
    std::vector<TextRow> speeds;
    for (std::size_t i = 0; 2 * i < d_model; ++i) {
        const double omega = pe_frequency(i, d_model);
        speeds.push_back({std::to_string(i),
                          2 * i + 1 < d_model ? fmt::format("{}, {}", 2 * i, 2 * i + 1) : std::to_string(2 * i),
                          fmt::format("{:.6f}", omega), fmt::format("{:.1f}", 2.0 * M_PI / omega)});
    }
    s.lesson.table({"pair i", "columns", "ω_i", "wavelength 2π/ω_i (positions)"}, speeds);
    s.lesson.show("PE", s.r.PE,
                  ShowAs("sinusoidal, one row per position")
                      .labels(numbered("pos ", rows(s.r.PE)), pe_labels(d_model))
                      .heat_map());
}

// Step: attention on X + PE; whom the followed token looks at, position by position.
void show_adding_positions(const Shown& s) {
    const Labels& tokens = s.seq.tokens;
    const std::size_t n = tokens.size(), watched = s.watched, watched_b = s.watched_b;
    const PositionalLesson& r = s.r;
    s.lesson.say(fmt::format(
        "The encoding belongs to the positions, not to the words: B's second token\n"
        "'{}' gets PE(1), as A's second token '{}' does. So the two sentences are no\n"
        "longer the same rows in another order.",
        s.tokens_b[1], tokens[1]));
    s.lesson.show("X_plus_PE", r.X_plus_PE, ShowAs("X + PE, sentence A").labels(tokens, s.seq.dimensions).heat_map());
    s.lesson.show("output_pe", r.pe_a.output, ShowAs("attention(X + PE), sentence A").labels(tokens, s.value_columns));
    s.lesson.show("output_permuted_pe", r.pe_b.output,
                  ShowAs("attention(X_B + PE), sentence B").labels(s.tokens_b, s.value_columns));
    const std::size_t top_a = argmax_of_row(r.pe_a.weights, watched), top_b = argmax_of_row(r.pe_b.weights, watched_b);
    // A long sequence shows its first and last positions, and the two the text names.
    std::vector<std::size_t> shown = {top_a, top_b};
    for (const std::size_t j : elided_indices(n))
        if (j != elided) shown.push_back(j);
    std::sort(shown.begin(), shown.end());
    shown.erase(std::unique(shown.begin(), shown.end()), shown.end());
    std::vector<TextRow> looks;
    for (std::size_t i = 0; i < shown.size(); ++i) {
        const std::size_t j = shown[i];
        if (i > 0 && j > shown[i - 1] + 1) looks.push_back({"", "…", "", "…"});  // positions left out
        looks.push_back({std::to_string(j), tokens[j], format_number(r.pe_a.weights(watched, j), 3), s.tokens_b[j],
                         format_number(r.pe_b.weights(watched_b, j), 3)});
    }
    const std::string& word = tokens[watched];
    s.lesson.table({"position", "A", "weight of \"" + word + "\"", "B", "weight of \"" + word + "\""}, looks);
    s.lesson.say(
        fmt::format("With positions in the keys, \"{}\" looks most at position {} in A ('{}') and at\n"
                    "position {} in B ('{}'), so it fetches other values:",
                    word, top_a, tokens[top_a], top_b, s.tokens_b[top_b]));
    s.lesson.say(compare_rows(word, s.value_columns, r.pe_a.output, watched, r.pe_b.output, watched_b));
    s.lesson.say(
        fmt::format("\"{}\" now has a different output in each sentence (largest change {:.3f}): the\n"
                    "keys of the words around it carry their positions, so it weighs them differently.\n"
                    "Notice how loud PE is next to these small embeddings: every cosine column starts\n"
                    "at 1. The paper multiplies the embeddings by √d_model before adding PE, and a\n"
                    "trained model learns embeddings that keep words and positions apart.",
                    word, max_abs_difference(row_of(r.pe_b.output, watched_b), row_of(r.pe_a.output, watched))));
}

// Step: the rotation M_k and how well it moves every position on.
void show_rotation(const Shown& s, std::size_t shift, std::size_t max_pos) {
    const std::size_t d_model = cols(s.seq.X);
    s.lesson.say(fmt::format(
        "sin(a + b) = sin a cos b + cos a sin b and cos(a + b) = cos a cos b − sin a sin b,\n"
        "so moving k = {0} positions on turns every pair (sin, cos) by the angle ω_i k: a\n"
        "rotation. All of them together are one block-diagonal matrix M_k, whose 2×2 block\n"
        "for pair i is the textbook rotation matrix R(ω_i k) = [[cos ω_i k, −sin ω_i k],\n"
        "[sin ω_i k, cos ω_i k]]. Our vectors are rows, so it multiplies from the right:\n"
        "(sin, cos) · R(θ) = (sin, cos) turned clockwise by θ, which is R(θ)ᵀ = R(−θ) in\n"
        "the column-vector form. M_k holds no pos: the same matrix moves every position\n"
        "k steps on, so \"k tokens further\" is a linear map a projection like W_Q or W_K\n"
        "can learn to use.",
        shift));
    if (d_model % 2 != 0)
        s.lesson.say(fmt::format("d_model = {} is odd: the last column, a sine with no cosine, is left out.",
                                 d_model));
    s.lesson.show("M_k", s.r.M_k,
                  ShowAs(fmt::format("rotation by ω_i · {}", shift)).labels(pe_labels(d_model), pe_labels(d_model)));
    s.lesson.say(fmt::format("PE(pos) · M_{} against PE(pos + {}) for pos = 0 … {}: largest difference {:.1e}.", shift,
                             shift, max_pos - 1, max_abs_difference(s.r.moved, s.r.PE_to)));
}

// Step: a longer encoding, its wavelengths, and the dot products of its rows.
void show_long(const Shown& s) {
    const Matrix& PE_long = s.r.PE_long;
    const std::size_t d_pe = cols(PE_long);
    s.lesson.say(
        "The first columns change fast and the last ones slowly: read down a column to\n"
        "see its wavelength. Together the columns give every position its own pattern,\n"
        "like the digits of a number, but smooth.");
    s.lesson.show("PE_long", PE_long,
                  ShowAs("sinusoidal").labels(numbered("pos ", rows(PE_long)), pe_labels(d_pe)).decimals(2).heat_map());
    std::vector<TextRow> waves;
    for (std::size_t i = 0; i < d_pe / 2; ++i)
        waves.push_back({std::to_string(i), fmt::format("{:.1f}", 2.0 * M_PI / pe_frequency(i, d_pe))});
    s.lesson.table({"pair i", "wavelength (positions)"}, waves);
    Labels dot_rows;
    for (const std::size_t pos : s.r.starts) dot_rows.push_back(fmt::format("pos {}", pos));
    dot_rows.push_back("Σ cos(ωk)");
    s.lesson.say(
        "The dot product of two positions' encodings depends only on how far apart\n"
        "they are: PE(pos) · PE(pos + k) = Σ_i cos(ω_i k), the same in every row.\n"
        "It is largest at k = 0, where each pair adds sin² + cos² = 1, and smaller at\n"
        "every other distance.");
    s.lesson.show("PE_dots", s.r.PE_dots,
                  ShowAs("PE(pos) · PE(pos + k)").labels(dot_rows, numbered("k=", cols(s.r.PE_dots))).heat_map());
}

// Each claim against something computed another way: the paper's formula again,
// the permutation of the rows, attention as loops in double (which shares nothing
// with common/math's attention, so a wrong scaling there shows), closed forms.
void check(SelfChecks& check, const Shown& s, std::size_t shift, std::size_t max_pos) {
    const PositionalLesson& r = s.r;
    const std::string& word = s.seq.tokens[s.watched];
    check.close("PE = the paper's formula, again in double (PE and PE_long)",
                r.formula_error, 1e-6);
    // Permuted, each softmax and each Σ_j w_j v_j adds the same terms in another order:
    // float32 rounding of a sum of n terms (row_sum_tolerance) of the values' size.
    const double permuted_tolerance =
        std::max(1e-6, row_sum_tolerance(rows(s.seq.X)) * r.plain_a_by_loops.value_size);
    check.close("without PE: output_B = P · output_A (rows permuted alike)",
                max_abs_difference(r.plain_b.output, permute_rows(r.plain_a.output, s.order)), permuted_tolerance);
    check.close(fmt::format("without PE, \"{}\" gets the same output in both sentences", word),
                max_abs_difference(row_of(r.plain_b.output, s.watched_b), row_of(r.plain_a.output, s.watched)),
                permuted_tolerance);
    const double pe_breaks = max_abs_difference(r.pe_b.output, permute_rows(r.pe_a.output, s.order));
    check.that(fmt::format("with PE, the outputs are no longer permuted copies (largest difference {:.3f})", pe_breaks),
               pe_breaks > 1e-3);
    // A float32 score is off by about (d_model + d_k) roundings of the size of its
    // terms (score_size); a weight moves by less than its score does.
    const AttentionByLoops& loops = r.pe_a_by_loops;
    const double weights_tolerance =
        std::max(1e-6, double(cols(s.seq.X) + cols(s.W.W_Q)) * FLT_EPSILON * loops.score_size);
    check.close("weights of X + PE = softmax(q·k_j/√d_k), loops in double",
                max_abs_difference(r.pe_a.weights, loops.weights), weights_tolerance);
    check.close("attention(X + PE): output = Σ_j w_j v_j as loops in double",
                max_abs_difference(r.pe_a.output, loops.output),
                std::max(1e-6, weights_tolerance * double(rows(s.seq.X)) * loops.value_size));
    check.close(fmt::format("PE(pos + {0}) = PE(pos) · M_{0} for every pos < {1}", shift, max_pos),
                max_abs_difference(r.moved, r.PE_to), 1e-5);
    // A row of PE_dots sums d_pe products of floats (each off by FLT_EPSILON/2 at most,
    // and each pair (sin, cos) adds up to 1 at most) into a number up to d_pe/2, stored as
    // float like the closed form: together at most d_pe · FLT_EPSILON apart.
    const std::size_t d_pe = cols(r.PE_long), last = r.starts.size();
    double dot_error = 0.0;
    for (std::size_t row = 0; row < last; ++row)
        for (std::size_t k = 0; k < cols(r.PE_dots); ++k)
            dot_error = std::max(dot_error, double(std::abs(r.PE_dots(row, k) - r.PE_dots(last, k))));
    check.close("PE(pos) · PE(pos + k) = Σ_i cos(ω_i k), whatever pos", dot_error,
                std::max(1e-5, double(d_pe) * FLT_EPSILON));
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson("ch09_positional_encoding", "Chapter 09 · Positional encoding");
    const std::string& input = lesson.add_input_option(
        "\"" + default_sentence + "\", compared with \"the mat sat on the cat\" (with --input: the sequence reversed)");
    std::size_t max_pos = 50, d_pe = 16, shift = 1;
    lesson.cli().add_option("--max-pos", max_pos, "positions of the long encoding of the long-encoding step")
        ->capture_default_str()->check(CLI::Range(std::size_t{1}, std::size_t{10000}));
    lesson.cli().add_option("--d-pe", d_pe, "width of the long encoding of the long-encoding step (even: pairs of sin and cos)")
        ->capture_default_str()->check(CLI::Range(std::size_t{2}, std::size_t{512}));
    lesson.cli().add_option("--shift", shift, "k of the rotation step: PE(pos + k) = PE(pos) · M_k")
        ->capture_default_str()->check(CLI::Range(std::size_t{0}, std::size_t{1000}));

    return lesson.run(argc, argv, [&] {
        if (d_pe % 2 != 0)
            throw InputError(fmt::format("--d-pe {}: must be even (the columns come in pairs of sin and cos)", d_pe));
        const LabelledMatrix W_Q = read_data_file("projections/W_Q.csv"), W_K = read_data_file("projections/W_K.csv"),
                             W_V = read_data_file("projections/W_V.csv");
        const Sequence seq = load_sequence(input, default_sentence);
        require_projects(W_Q, seq, input.empty() ? data_path("embeddings.csv") : input);
        const std::size_t n = rows(seq.X);
        if (n < 2) throw InputError(fmt::format("--input {}: needs at least 2 tokens to reorder", input));
        const Order order = input.empty() ? swap_cat_and_mat : reversal(n);
        const Projections W{W_Q.values, W_K.values, W_V.values};
        const PositionalLesson r = positional_lesson(seq.X, W, order, shift, max_pos, d_pe);
        // The token whose output we follow: "sat" stays at position 2 in both sentences;
        // for a learner's sequence, the first token (it moves to the end).
        const std::size_t watched = input.empty() ? 2 : 0;
        const auto watched_b = static_cast<std::size_t>(std::find(order.begin(), order.end(), watched) - order.begin());
        const Shown s{lesson, seq, W_V.columns, order, permute_labels(seq.tokens, order), watched, watched_b, W, r, input};
        lesson.step("two-sentences", "Two sentences, the same vectors", [&] { show_sentences(s); });
        lesson.step("no-positions", "Self-attention cannot tell them apart", [&] { show_no_positions(s); });
        lesson.step("encoding", "The sinusoidal encoding", [&] { show_encoding(s); });
        lesson.step("adding-positions", "Adding the positions: X + PE", [&] { show_adding_positions(s); });
        lesson.step("rotation", fmt::format("Why sines and cosines: PE(pos + {0}) = PE(pos) · M_{0}", shift),
                    [&] { show_rotation(s, shift, max_pos); });
        lesson.step("long-encoding", fmt::format("A longer encoding: {} positions × {} dimensions", max_pos, d_pe),
                    [&] { show_long(s); });
        lesson.step("checks", "Self-checks", [&] { check(lesson.checks(), s, shift, max_pos); });
        lesson.present();
    });
}
