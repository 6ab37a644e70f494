// Chapter 09 · Positional encoding
//
// The lesson: attention gives two sentences with the same words in another order the
// same outputs; the sinusoidal encoding of the paper, added to the embeddings, tells them
// apart. Then why sines and cosines: moving k positions on is one rotation M_k, and the
// dot product of two positions' encodings depends only on their distance (math.cpp).
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/09_positional_encoding/checks.hpp"
#include "chapters/09_positional_encoding/inputs.hpp"
#include "chapters/09_positional_encoding/math.hpp"
#include "common/attention/positional_encoding.hpp"
#include "common/display/elide.hpp"
#include "common/inputs/sequence.hpp"
#include "common/lesson/lesson.hpp"

namespace {

// "sin0", "cos0", "sin1", …: which function and which pair each column of PE is.
Labels pe_labels(std::size_t d_model) {
    Labels labels;
    for (std::size_t c = 0; c < d_model; ++c) labels.push_back(fmt::format("{}{}", c % 2 == 0 ? "sin" : "cos", c / 2));
    return labels;
}

// The rows of PE_dots: its starting positions, then the closed form.
Labels start_labels(const std::vector<std::size_t>& starts) {
    Labels labels;
    for (const std::size_t pos : starts) labels.push_back(fmt::format("pos {}", pos));
    labels.push_back("Σ cos(ωk)");
    return labels;
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
    const Inputs& in;  // the sentences A and B, and the projections (W_V's columns: v_animal, …)
    const WithAndWithoutPositions& r;
    const std::string& input;
};

// Step: the two sentences, the same rows of X in another order.
void show_sentences(const Shown& s) {
    std::vector<std::string> order_text;
    for (const std::size_t i : s.in.order) order_text.push_back(std::to_string(i));
    s.lesson.say(fmt::format(
        "A: \"{}\"\nB: \"{}\"\n"
        "B has exactly the rows of A's X, in another order: row i of X_B is row\n"
        "order[i] of X, order = ({}). {}",
        join_elided(s.in.seq.tokens, " "), join_elided(s.in.tokens_b, " "), join_elided(order_text, ", "),
        s.input.empty() ? "Who sat on whom is only in the order." : "Only the order differs."));
    s.lesson.show(s.r.X, Style().decimals(1));
}

// Step: attention without positions gives permuted copies.
void show_no_positions(const Shown& s) {
    s.lesson.say("Self-attention with the projections of chapter 05 on each sentence. Every\n"
                 "score is q_i · k_j, and neither vector knows its position: permuting the\n"
                 "tokens permutes the rows and columns of the weights, and the rows of the output.");
    s.lesson.show(s.r.plain_a.output);
    s.lesson.show(s.r.plain_b.output);
    const std::string& word = s.in.seq.tokens[s.r.watched];
    s.lesson.say(
        compare_rows(word, s.in.W_V.columns, s.r.plain_a.output, s.r.watched, s.r.plain_b.output, s.r.watched_b));
    s.lesson.say(fmt::format("\"{}\" gets the same output in both sentences: to attention they are the same\n"
                             "bag of words.",
                             word));
}

// Step: the frequencies and PE.
void show_encoding(const Shown& s) {
    const std::size_t d_model = cols(s.in.seq.X);
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
                          format_number(float(omega), 6), format_number(float(2.0 * M_PI / omega), 1)});
    }
    s.lesson.table({"pair i", "columns", "ω_i", "wavelength 2π/ω_i (positions)"}, speeds);
    s.lesson.show(s.r.PE, Style().svg());
}

// Step: attention on X + PE; whom the followed token looks at, position by position.
void show_adding_positions(const Shown& s) {
    const Labels& tokens = s.in.seq.tokens;
    const WithAndWithoutPositions& r = s.r;
    const std::size_t watched = r.watched, watched_b = r.watched_b, top_a = r.top_a, top_b = r.top_b;
    s.lesson.say(fmt::format(
        "The encoding belongs to the positions, not to the words: B's second token\n"
        "'{}' gets PE(1), as A's second token '{}' does. So the two sentences are no\n"
        "longer the same rows in another order.",
        s.in.tokens_b[1], tokens[1]));
    s.lesson.show(s.r.X_plus_PE, Style().svg());
    s.lesson.show(s.r.pe_a.output);
    s.lesson.show(s.r.pe_b.output);
    // A long sequence shows its first and last positions, and the two the text names.
    std::set<std::size_t> shown = {top_a, top_b};
    for (const std::size_t j : elided_indices(tokens.size()))
        if (j != elided) shown.insert(j);
    std::vector<TextRow> looks;
    for (const std::size_t j : shown) {
        if (j != *shown.begin() && shown.count(j - 1) == 0) looks.push_back({"", "…", "", "…"});  // left out
        looks.push_back({std::to_string(j), tokens[j], format_number(r.pe_a.weights(watched, j), 3), s.in.tokens_b[j],
                         format_number(r.pe_b.weights(watched_b, j), 3)});
    }
    const std::string& word = tokens[watched];
    s.lesson.table({"position", "A", "weight of \"" + word + "\"", "B", "weight of \"" + word + "\""}, looks);
    s.lesson.say(fmt::format("With positions in the keys, \"{}\" looks most at position {} in A ('{}') and at\n"
                             "position {} in B ('{}'), so it fetches other values:",
                             word, top_a, tokens[top_a], top_b, s.in.tokens_b[top_b]));
    s.lesson.say(compare_rows(word, s.in.W_V.columns, r.pe_a.output, watched, r.pe_b.output, watched_b));
    s.lesson.say(fmt::format("\"{}\" now has a different output in each sentence (largest change {}): the\n"
                             "keys of the words around it carry their positions, so it weighs them differently.\n"
                             "Notice how loud PE is next to these small embeddings: every cosine column starts\n"
                             "at 1. The paper multiplies the embeddings by √d_model before adding PE, and a\n"
                             "trained model learns embeddings that keep words and positions apart.",
                             word, format_number(float(r.pe_change), 3)));
}

// Step: the rotation M_k and how well it moves every position on.
void show_rotation(const Shown& s, std::size_t shift, std::size_t max_pos) {
    const std::size_t d_model = cols(s.in.seq.X);
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
    s.lesson.show(s.r.M_k);
    s.lesson.say(fmt::format("PE(pos) · M_{} against PE(pos + {}) for pos = 0 … {}: largest difference {:.1e}.", shift,
                             shift, max_pos - 1, s.r.rotation_error));
}

// Step: a longer encoding, its wavelengths, and the dot products of its rows.
void show_long(const Shown& s) {
    const Matrix& PE_long = s.r.PE_long;
    const std::size_t d_pe = cols(PE_long);
    s.lesson.say("The first columns change fast and the last ones slowly: read down a column to\n"
                 "see its wavelength. Together the columns give every position its own pattern,\n"
                 "like the digits of a number, but smooth.");
    s.lesson.show(s.r.PE_long, Style().decimals(2).svg());
    std::vector<TextRow> waves;
    for (std::size_t i = 0; i < d_pe / 2; ++i)
        waves.push_back({std::to_string(i), format_number(float(2.0 * M_PI / pe_frequency(i, d_pe)), 1)});
    s.lesson.table({"pair i", "wavelength (positions)"}, waves);
    s.lesson.say("The dot product of two positions' encodings depends only on how far apart\n"
                 "they are: PE(pos) · PE(pos + k) = Σ_i cos(ω_i k), the same in every row.\n"
                 "It is largest at k = 0, where each pair adds sin² + cos² = 1, and smaller at\n"
                 "every other distance.");
    s.lesson.show(s.r.PE_dots, Style().svg());
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson;  // named and titled by chapter.toml
    const std::string& input = lesson.add_input_option(
        "\"" + default_sentence + "\", compared with \"the mat sat on the cat\" (with --input: the sequence reversed)");
    refuse_text(lesson, "its W_Q, W_K, W_V fit data/embeddings.csv only; chapter 05 takes it");
    Flags flags;
    add_flags(lesson, flags);

    return lesson.run(argc, argv, [&] {
        const Inputs in = load_inputs(input, flags);
        const std::size_t n = rows(in.seq.X), max_pos = flags.max_pos, d_pe = flags.d_pe, shift = flags.shift;
        const WithAndWithoutPositions r = with_and_without_positions(in.seq.X, in.W, in.order, in.watched, shift, max_pos, d_pe);
        lesson.labels({{"tokens", in.seq.tokens}, {"tokens B", in.tokens_b}, {"dimensions", in.seq.dimensions},
                       {"values", in.W_V.columns}, {"positions", numbered("pos ", n)}, {"long pairs", pe_labels(d_pe)},
                       {"pairs", pe_labels(cols(in.seq.X))}, {"long positions", numbered("pos ", max_pos)},
                       {"starts", start_labels(r.starts)}, {"distances", numbered("k=", cols(r.PE_dots))}});
        lesson.list(r.matrices());
        const Shown s{lesson, in, r, input};
        lesson.step("two-sentences", "Two sentences, the same vectors", [&] { show_sentences(s); });
        lesson.step("no-positions", "Self-attention cannot tell them apart", [&] { show_no_positions(s); });
        lesson.step("encoding", "The sinusoidal encoding", [&] { show_encoding(s); });
        lesson.step("adding-positions", "Adding the positions: X + PE", [&] { show_adding_positions(s); });
        lesson.step("rotation", fmt::format("Why sines and cosines: PE(pos + {0}) = PE(pos) · M_{0}", shift),
                    [&] { show_rotation(s, shift, max_pos); });
        lesson.step("long-encoding", fmt::format("A longer encoding: {} positions × {} dimensions", max_pos, d_pe),
                    [&] { show_long(s); });
        lesson.step("checks", "Self-checks",
                    [&] { check_positions(lesson.checks(), r, in.order, in.seq.tokens[r.watched], max_pos); });
        lesson.present();
    });
}
