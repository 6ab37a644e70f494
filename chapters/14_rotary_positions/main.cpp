// Chapter 14 · Rotary position embeddings (RoPE)
//
// The lesson: turn each pair of query and key dimensions by an angle proportional to the
// position, so that a score depends on the distance alone (X + PE's do not); the two layouts
// of the pairs found in public code; the decay of the scores with distance.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "chapters/14_rotary_positions/checks.hpp"
#include "chapters/14_rotary_positions/inputs.hpp"
#include "chapters/14_rotary_positions/math.hpp"
#include "common/inputs/sequence.hpp"
#include "common/lesson/lesson.hpp"

namespace {

const std::string default_sentence = "the cat sat on the mat";
const std::size_t decay_d = 128;  // the width of the decay step's vectors: a head of Llama

// What every step shows: the sequence, the flags and what math.cpp computed.
struct Shown {
    Lesson& lesson;
    const Sequence& seq;
    const LabelledMatrix& W_Q;
    bool default_data;  // the default sentence and projections
    const RotatedScores& r;
};

std::string number(float x) { return format_number(x, 3); }

// Step: Q and K as chapter 05 makes them, and the positions they stand at.
void show_queries_keys(const Shown& s) {
    s.lesson.say(fmt::format(
        "Q = X · W_Q and K = X · W_K with the projections of chapter 05: d_k = {}, so {}\n"
        "pairs of dimensions. Token t stands at position offset + t (--offset {}).",
        cols(s.r.Q), cols(s.r.Q) / 2, s.r.offset));
    s.lesson.show(s.seq.X, Style().decimals(1));
    s.lesson.show(s.r.Q);
    s.lesson.show(s.r.K);
}

// Step: the frequencies and the angle of every pair at every position.
void show_angles(const Shown& s) {
    s.lesson.say(fmt::format(
        "θ_i = base^(−2i/d_k), the frequencies of chapter 09 (base {:g}). Pair i turns by\n"
        "θ_i radians per position: pair 0 by 1 radian, the last pair slowest.",
        s.r.base));
    std::vector<TextRow> rows_;
    for (std::size_t i = 0; i < s.r.theta.size(); ++i)
        rows_.push_back({std::to_string(i), fmt::format("{}, {}", 2 * i, 2 * i + 1),
                         fmt::format("{}, {}", s.W_Q.columns[2 * i], s.W_Q.columns[2 * i + 1]),
                         format_number(float(s.r.theta[i]), 6), format_number(float(s.r.periods[i]), 1)});
    s.lesson.table({"pair i", "columns", "of Q", "θ_i", "turn every (positions)"}, rows_);
    s.lesson.show(s.r.angles);
}

// Step: one query, pair by pair.
void show_one_rotation(const Shown& s) {
    const std::size_t t = s.r.example, pos = s.r.offset + t;
    s.lesson.say(fmt::format(
        "The query of '{}' at position {}. Each pair (a, b) = (q_2i, q_2i+1) is multiplied\n"
        "by the rotation R(α) = [[cos α, −sin α], [sin α, cos α]], α = {} · θ_i:\n"
        "(a, b) → (a cos α − b sin α, a sin α + b cos α). Its length does not change.",
        s.seq.tokens[t], pos, pos));
    std::vector<TextRow> table;
    for (const PairTurn& p : s.r.example_pairs)
        table.push_back({std::to_string(table.size()), fmt::format("({}, {})", number(p.a), number(p.b)),
                         number(p.alpha), number(p.cos_alpha), number(p.sin_alpha),
                         fmt::format("({}, {})", number(p.a_rot), number(p.b_rot)), number(p.length),
                         number(p.length_rot)});
    s.lesson.table({"pair", "(a, b)", "α", "cos α", "sin α", "turned", "|(a, b)|", "|turned|"}, table);
}

// Step: the rotated queries and keys, their scores and weights.
void show_rotated(const Shown& s) {
    s.lesson.say(
        "Every row turned by its own position's angles, queries and keys alike. The\n"
        "scores are plain dot products of the turned vectors; the weights, softmax of\n"
        "scores / √d_k as in chapter 03.");
    s.lesson.show(s.r.Q_rot);
    s.lesson.show(s.r.K_rot);
    if (s.default_data)
        s.lesson.say(
            "'the' stands at positions 0 and 4: one row of Q, two rows of Q_rot. The\n"
            "position is now inside the vector, and X was never touched.");
    s.lesson.show(s.r.scores);
    s.lesson.show(s.r.weights, Style().svg());
}

// Step: shift every position; RoPE's scores stay, X + PE's move.
void show_offset(const Shown& s) {
    s.lesson.say(
        "R(α)ᵀ R(β) = R(β − α), so q_rot(m) · k_rot(n) = q · R((n − m)θ) k: the positions\n"
        "enter only through their difference. Shift every position by P and each score\n"
        "stays. Chapter 09's sinusoids added to X (with the same base) have no such\n"
        "property: the scores of (X + PE) W_Q · ((X + PE) W_K)ᵀ move.");
    s.lesson.show(s.r.pe_scores);
    std::vector<TextRow> table;
    for (std::size_t k = 0; k < s.r.offsets.size(); ++k)
        table.push_back({fmt::format("{}", s.r.offsets[k]), fmt::format("{:.1e}", s.r.offset_changes(k, 0)),
                         number(s.r.offset_changes(k, 1))});
    s.lesson.say(
        fmt::format("max |scores(offset P) − scores(offset 0)| over all {} × {} scores:", rows(s.r.Q), rows(s.r.Q)));
    s.lesson.table({"offset P", "RoPE", "X + PE (chapter 09)"}, table);
    s.lesson.say(
        "RoPE's column is float rounding (the angles are taken in double: an angle near\n"
        "10⁶ radians stored as a float is off by up to 0.03). X + PE's column is the\n"
        "absolute position leaking into every score.");
}

// Step: interleaved pairs against split halves.
void show_pairings(const Shown& s) {
    const std::size_t d_k = cols(s.r.Q);
    s.lesson.say(fmt::format(
        "The RoFormer paper pairs dimensions (2i, 2i+1): interleaved. GPT-NeoX and Hugging\n"
        "Face's Llama pair (i, i + d_k/2): split halves, written x·cos + rotate_half(x)·sin.\n"
        "Same frequencies, other columns. Put Q's columns in the order {} (as\n"
        "Hugging Face's Llama conversion script permutes W_Q and W_K), and split halves\n"
        "turns exactly the pairs that interleaved turned:",
        fmt::format("({})", fmt::join(halves_order(d_k), ", "))));
    s.lesson.show(s.r.Q_rot_halves);
    s.lesson.show(s.r.scores_halves);
    s.lesson.say(
        fmt::format("The same scores as interleaved (largest difference {:.1e}). Mixed up, split halves\n"
                    "applied to Q and K in their interleaved layout turns other pairs (0 with {}, …)\n"
                    "at other speeds. A model trained with one layout and run with the other reads\n"
                    "other scores:",
                    s.r.halves_change, d_k / 2));
    s.lesson.show(s.r.scores_mixed);
    s.lesson.show(s.r.weights_mixed, Style().svg());
    s.lesson.say(fmt::format("Largest change of a score {}, of a weight {}.", number(s.r.mixed_change),
                             number(s.r.mixed_weight_change)));
}

// Step: the long-range decay, as a text chart and (--svg) a plot.
void show_decay(const Shown& s) {
    const RotatedScores& r = s.r;
    const std::size_t last = r.distances.size() - 1;
    s.lesson.say(fmt::format(
        "Take q = k = (1, …, 1) of width {0}. Then q_rot(m) · k_rot(n) = 2 Σ_i cos((m − n)θ_i),\n"
        "largest at distance 0 and smaller, on average, the further apart. RoFormer\n"
        "(section 3.4.3) bounds any score by max_k |h_k − h_k+1| · Σ_j |S_j|, with\n"
        "S_j = Σ_(k<j) e^(i·(m−n)θ_k), a bound that falls, on the whole, with distance.\n"
        "Both relative to distance 0:",
        decay_d));
    ChartOptions chart;
    chart.y_text = [](double y) { return format_number(float(y), 2); };
    for (std::size_t k = 0; k <= 4; ++k)
        chart.ticks.push_back({double(k * last / 4), std::to_string(k * last / 4)});
    chart.x_title = "  |m − n|";
    s.lesson.chart("decay", fmt::format("RoPE scores against distance (d = {}, base {:g})", decay_d, r.base),
                   {"distance |m − n| (positions)", false}, {"relative to distance 0", false},
                   {{"q = k = ones", r.distances, r.decay_ones, "•"},
                    {"RoFormer's bound", r.distances, r.decay_bound, "b"}}, chart);
    std::vector<TextRow> table;
    for (const std::size_t d : r.decay_rows)
        table.push_back({std::to_string(d), number(r.decay(d, 0)), number(r.decay(d, 1))});
    s.lesson.table({"distance", "q = k = ones", "RoFormer's bound"}, table);
    s.lesson.say(
        "The decay is about vectors that point the same way: a trained W_Q and W_K can\n"
        "still make a distant key score high.");
}

// The words of the list's labels: each token at its position ("the@0", "cat@1", …), the
// projections' columns, in their order and in halves order, and the angles' pos·θ_i.
void label_everything(Lesson& lesson, const Sequence& seq, const LabelledMatrix& W_Q, const LabelledMatrix& W_K,
                      std::size_t offset) {
    Labels positioned;
    for (std::size_t t = 0; t < seq.tokens.size(); ++t)
        positioned.push_back(fmt::format("{}@{}", seq.tokens[t], offset + t));
    lesson.labels({{"tokens", seq.tokens}, {"positions", positioned}, {"dimensions", seq.dimensions},
                   {"query dims", W_Q.columns}, {"key dims", W_K.columns},
                   {"halves", permute_labels(W_Q.columns, halves_order(cols(W_Q.values)))},
                   {"angles", numbered("pos·θ", cols(W_Q.values) / 2)}});
}

}  // namespace

int main(int argc, char** argv) {
    Lesson lesson;  // named and titled by chapter.toml
    const std::string& input = lesson.add_input_option("\"" + default_sentence + "\"");
    refuse_text(lesson, "its W_Q, W_K, W_V fit data/embeddings.csv only; chapter 05 takes it");
    Options o;
    add_options(lesson, o);
    return lesson.run(argc, argv, [&] {
        const Projections W = read_projections(o.w_q_path, o.w_k_path);
        const Sequence seq = load_sequence(input, default_sentence, square_matrices_held);
        require_fit(W, seq, input);
        const RotatedScores r = rotated_scores(seq.X, W.W_Q.values, W.W_K.values, o.offset, o.base, decay_d, o.max_distance);
        label_everything(lesson, seq, W.W_Q, W.W_K, o.offset);
        lesson.list(seq.matrices());
        lesson.list(r.matrices());
        const bool default_data = input.empty() && o.w_q_path.empty() && o.w_k_path.empty();
        const Shown s{lesson, seq, W.W_Q, default_data, r};
        lesson.step("queries-keys", "Queries and keys, and their positions", [&] { show_queries_keys(s); });
        lesson.step("angles", "One angle per pair and position", [&] { show_angles(s); });
        lesson.step("one-rotation", "Turning one query, pair by pair", [&] { show_one_rotation(s); });
        lesson.step("rotated", "Q_rot, K_rot and their scores", [&] { show_rotated(s); });
        lesson.step("offset", "Only the distance counts: shifting every position", [&] { show_offset(s); });
        lesson.step("pairings", "Interleaved pairs or split halves", [&] { show_pairings(s); });
        lesson.step("decay", fmt::format("Scores against distance, d = {}", decay_d), [&] { show_decay(s); });
        lesson.step("checks", "Self-checks", [&] { check_rope(lesson.checks(), r, o.base, default_data); });
        lesson.present();
    });
}
